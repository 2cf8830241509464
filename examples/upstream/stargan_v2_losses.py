"""StarGAN v2's discriminator loss with its R1 penalty, in plain torch as ``core/solver.py``'s
``compute_d_loss`` writes it: the ``loss = "stargan_v2_losses:stargan_v2_d"`` of
``stargan_v2_d.toml``.  ``jtport parity`` runs this file under torch (the clone on ``sys.path``)
and its conversion under Jittor (the converted clone); the gradients compared are those of the
scalar with respect to the Discriminator's parameters, through ``autograd.grad(create_graph=True)``.
"""
import torch
import torch.nn.functional as F


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


def stargan_v2_d(D, inputs, outputs, lambda_reg=1.0):
    """``compute_d_loss``: real images of their own domain (with R1), fake images of the target
    domain.  The fakes come from the generator under ``no_grad`` there, so the discriminator's
    gradients do not depend on how they were made: here they are the spec's seeded ``x_fake``."""
    x_real = inputs["x_real"].detach().requires_grad_()
    out = D(x_real, inputs["y_org"])
    loss_real = adv_loss(out, 1)
    loss_reg = r1_reg(out, x_real)
    out = D(inputs["x_fake"], inputs["y_trg"])
    loss_fake = adv_loss(out, 0)
    return loss_real + loss_fake + lambda_reg * loss_reg
