"""StyleGAN2-ADA's losses, in plain torch as ``training/loss.py`` writes them: the second-order
regularisers (the ``loss = "stylegan2_losses:<name>"`` of ``stylegan2_ada_r1.toml`` and
``stylegan2_ada_pl.toml``) and the four phases' terms on a generator and discriminator held as
one module (``stylegan2_ada_train.toml``: ``StyleGAN2Nets``, ``stylegan2_terms``).
``jtport parity`` runs this file under torch (with the clone on ``sys.path``: it imports the
clone's ``conv2d_gradfix``) and its conversion (``jtport convert``, done on the fly) under Jittor
(with the converted clone).  Each function is ``(model, inputs, outputs) -> scalar``; the
gradients compared are those of that scalar with respect to the model's parameters, gradients
of a gradient (``autograd.grad(create_graph=True)``).
"""
import numpy as np
import torch
import torch.nn as nn
from torch_utils.ops import conv2d_gradfix
from training.networks import Discriminator, Generator


def stylegan2_r1(D, inputs, outputs, r1_gamma=10.0):
    """StyleGAN2-ADA's R1 penalty on real images, the ``Dreg`` phase of
    ``training/loss.py`` ``StyleGAN2Loss.accumulate_gradients`` (no augmentation pipe):
    ``r1_gamma / 2 * |grad_x D(x)|^2``, averaged over the batch."""
    real_img_tmp = inputs["img"].detach().requires_grad_(True)
    real_logits = D(real_img_tmp, inputs["c"])
    with conv2d_gradfix.no_weight_gradients():
        r1_grads = torch.autograd.grad(outputs=[real_logits.sum()], inputs=[real_img_tmp],
                                       create_graph=True, only_inputs=True)[0]
    r1_penalty = r1_grads.square().sum([1, 2, 3])
    loss_Dr1 = r1_penalty * (r1_gamma / 2)
    return (real_logits * 0 + loss_Dr1).mean()


def stylegan2_pl(G, inputs, outputs, pl_batch_shrink=2, pl_decay=0.01, pl_weight=2.0):
    """StyleGAN2-ADA's path-length regularisation, the ``Greg`` phase of
    ``StyleGAN2Loss.accumulate_gradients`` with its defaults, from a fresh ``pl_mean`` of zero;
    the noise ``randn_like(gen_img)`` is the spec's seeded ``pl_noise`` input and the synthesis
    noise is constant, so both sides draw the same numbers."""
    gen_z, gen_c = inputs["z"], inputs["c"]
    batch_size = gen_z.shape[0] // pl_batch_shrink
    gen_ws = G.mapping(gen_z[:batch_size], gen_c[:batch_size])
    gen_img = G.synthesis(gen_ws, noise_mode="const")
    pl_noise = inputs["pl_noise"][:batch_size] / np.sqrt(gen_img.shape[2] * gen_img.shape[3])
    with conv2d_gradfix.no_weight_gradients():
        pl_grads = torch.autograd.grad(outputs=[(gen_img * pl_noise).sum()], inputs=[gen_ws],
                                       create_graph=True, only_inputs=True)[0]
    pl_lengths = pl_grads.square().sum(2).mean(1).sqrt()
    pl_mean = torch.zeros([]).lerp(pl_lengths.mean(), pl_decay)
    pl_penalty = (pl_lengths - pl_mean).square()
    loss_Gpl = pl_penalty * pl_weight
    return (gen_img[:, 0, 0, 0] * 0 + loss_Gpl).mean()


class StyleGAN2Nets(nn.Module):
    """``training_loop.py``'s ``G`` and ``D`` as one module (``G_kwargs``, ``D_kwargs`` as there),
    the networks ``StyleGAN2Loss`` reads.  Forward: the generator with constant synthesis noise."""

    def __init__(self, G_kwargs, D_kwargs, z_dim=16, c_dim=0, img_resolution=16, img_channels=3):
        super().__init__()
        common = dict(c_dim=c_dim, img_resolution=img_resolution, img_channels=img_channels)
        self.G = Generator(z_dim=z_dim, **common, **G_kwargs)
        self.D = Discriminator(**common, **D_kwargs)

    def forward(self, z, c):
        return self.G(z, c, noise_mode="const")


def stylegan2_terms(nets, inputs, outputs):
    """``StyleGAN2Loss.accumulate_gradients``'s four phases by name (no augmentation pipe, no
    style mixing, constant synthesis noise): ``G_main`` (``softplus(-D(G(z)))``), ``G_reg`` (path
    length, :func:`stylegan2_pl`), ``D_main`` (``softplus(D(G(z)))`` on the detached fakes plus
    ``softplus(-D(img))``) and ``D_reg`` (R1, :func:`stylegan2_r1`), each averaged as upstream
    averages it before its ``backward()``."""
    z, c = inputs["z"], inputs["c"]
    gen_img = nets.G.synthesis(nets.G.mapping(z, c), noise_mode="const")
    loss_Gmain = torch.nn.functional.softplus(-nets.D(gen_img, c)).mean()
    loss_Dgen = torch.nn.functional.softplus(nets.D(gen_img.detach(), c)).mean()
    real_logits = nets.D(inputs["img"].detach(), c)
    loss_Dreal = (real_logits * 0 + torch.nn.functional.softplus(-real_logits)).mean()
    return {"G_main": loss_Gmain, "G_reg": stylegan2_pl(nets.G, inputs, outputs),
            "D_main": loss_Dgen + loss_Dreal, "D_reg": stylegan2_r1(nets.D, inputs, outputs)}
