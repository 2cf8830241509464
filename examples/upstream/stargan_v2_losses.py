"""StarGAN v2's training losses for ``jtport parity``: the discriminator loss with its R1
penalty, in plain torch as ``core/solver.py``'s ``compute_d_loss`` writes it (the ``loss =
"stargan_v2_losses:stargan_v2_d"`` of ``stargan_v2_d.toml``; the gradients compared are those of
the scalar with respect to the Discriminator's parameters, through
``autograd.grad(create_graph=True)``), and the generator loss, upstream's ``compute_g_loss``
itself run on upstream's four networks (``stargan_v2_g.toml``).  ``jtport parity`` runs this file
under torch (the clone on ``sys.path``) and its conversion under Jittor (the converted clone).
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.model import Discriminator, Generator, MappingNetwork, StyleEncoder
from core.solver import compute_g_loss


def adv_loss(logits, target):
    """``core/solver.py``'s adversarial loss: BCE with logits against an all-``target`` map."""
    targets = torch.full_like(logits, fill_value=target)
    return F.binary_cross_entropy_with_logits(logits, targets)


def r1_reg(d_out, x_in):
    """``core/solver.py``'s zero-centred gradient penalty on real images (second order)."""
    batch_size = x_in.size(0)
    grad_dout = torch.autograd.grad(outputs=d_out.sum(), inputs=x_in, create_graph=True,
                                    retain_graph=True, only_inputs=True)[0]
    grad_dout2 = grad_dout.pow(2)
    return 0.5 * grad_dout2.view(batch_size, -1).sum(1).mean(0)


def stargan_v2_d_terms(D, inputs, outputs):
    """``compute_d_loss``'s terms by name: ``real`` (real images of their own domain), ``reg``
    (R1 on them) and ``fake`` (fake images of the target domain).  The fakes come from the
    generator under ``no_grad`` there, so the discriminator's gradients do not depend on how they
    were made: here they are the spec's seeded ``x_fake``."""
    x_real = inputs["x_real"].detach().requires_grad_()
    out = D(x_real, inputs["y_org"])
    loss_real = adv_loss(out, 1)
    loss_reg = r1_reg(out, x_real)
    out = D(inputs["x_fake"], inputs["y_trg"])
    loss_fake = adv_loss(out, 0)
    return {"real": loss_real, "fake": loss_fake, "reg": loss_reg}


def stargan_v2_d(D, inputs, outputs, lambda_reg=1.0):
    """``compute_d_loss``'s total: ``real + fake + lambda_reg * reg``."""
    terms = stargan_v2_d_terms(D, inputs, outputs)
    return terms["real"] + terms["fake"] + lambda_reg * terms["reg"]


class StarGANv2Nets(nn.Module):
    """``core/model.py``'s ``build_model`` networks held as one module, the ``nets`` that
    ``core/solver.py``'s losses read (``nets.generator``, ``nets.mapping_network``, ...), at a
    small configuration (``w_hpf = 0``: the FAN landmark network needs its own checkpoint).  The
    discriminator is frozen: the generator step of ``Solver.train`` steps the generator, mapping
    network and style encoder only.  Forward: a latent-guided translation (mapping network, then
    generator)."""

    def __init__(self, img_size=32, style_dim=16, latent_dim=16, num_domains=2, max_conv_dim=64):
        super().__init__()
        self.generator = Generator(img_size, style_dim, max_conv_dim, w_hpf=0)
        self.mapping_network = MappingNetwork(latent_dim, style_dim, num_domains)
        self.style_encoder = StyleEncoder(img_size, style_dim, num_domains, max_conv_dim)
        self.discriminator = Discriminator(img_size, num_domains, max_conv_dim)
        for p in self.discriminator.parameters():
            p.requires_grad = False

    def forward(self, x_real, y_trg, z_trg):
        return self.generator(x_real, self.mapping_network(z_trg, y_trg))


def stargan_v2_g(nets, inputs, outputs, lambda_sty=1.0, lambda_ds=1.0, lambda_cyc=1.0):
    """Upstream's own ``compute_g_loss`` (``core/solver.py``, imported from the clone on the torch
    side and from its conversion on the Jittor side), latent-guided: adversarial, style
    reconstruction, diversity-sensitive (``x_fake2.detach()``) and cycle-consistency terms at
    ``Solver``'s default weights."""
    args = SimpleNamespace(w_hpf=0, lambda_sty=lambda_sty, lambda_ds=lambda_ds, lambda_cyc=lambda_cyc)
    loss, _terms = compute_g_loss(nets, args, inputs["x_real"], inputs["y_org"], inputs["y_trg"],
                                  z_trgs=[inputs["z_trg"], inputs["z_trg2"]])
    return loss


def stargan_v2_g_terms(nets, inputs, outputs):
    """``compute_g_loss``'s four terms by name (``adv``, ``sty``, ``ds``, ``cyc``), latent-guided,
    written as upstream writes them: upstream returns them only as ``.item()`` floats, so a
    gradient row per term (``loss = ["stargan_v2_losses:stargan_v2_g_terms[sty]", ...]``) needs
    them as tensors.  ``ds`` is the diversity term the total subtracts."""
    x_real, y_trg = inputs["x_real"], inputs["y_trg"]
    s_trg = nets.mapping_network(inputs["z_trg"], y_trg)
    x_fake = nets.generator(x_real, s_trg)
    loss_adv = adv_loss(nets.discriminator(x_fake, y_trg), 1)
    s_pred = nets.style_encoder(x_fake, y_trg)
    loss_sty = torch.mean(torch.abs(s_pred - s_trg))
    s_trg2 = nets.mapping_network(inputs["z_trg2"], y_trg)
    x_fake2 = nets.generator(x_real, s_trg2).detach()
    loss_ds = torch.mean(torch.abs(x_fake - x_fake2))
    s_org = nets.style_encoder(x_real, inputs["y_org"])
    x_rec = nets.generator(x_fake, s_org)
    loss_cyc = torch.mean(torch.abs(x_rec - x_real))
    return {"adv": loss_adv, "sty": loss_sty, "ds": loss_ds, "cyc": loss_cyc}
