"""StyleGAN2-ADA's second-order regularisers, in plain torch as ``training/loss.py`` writes them:
the ``loss = "stylegan2_losses:<name>"`` of ``stylegan2_ada_r1.toml`` and ``stylegan2_ada_pl.toml``.
``jtport parity`` runs this file under torch (with the clone on ``sys.path``: it imports the
clone's ``conv2d_gradfix``) and its conversion (``jtport convert``, done on the fly) under Jittor
(with the converted clone).  Each function is ``(model, inputs, outputs) -> scalar``; the
gradients compared are those of that scalar with respect to the model's parameters, gradients
of a gradient (``autograd.grad(create_graph=True)``).
"""
import numpy as np
import torch
from torch_utils.ops import conv2d_gradfix


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
