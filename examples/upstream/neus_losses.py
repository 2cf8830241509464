"""NeuS's eikonal term in plain torch, as ``models/renderer.py`` writes it: the
``loss = "neus_losses:neus_eikonal"`` of ``neus_eikonal.toml`` (``jtport parity`` converts this
file on the fly for the Jittor side).  HiSD's R1 needs no such file: upstream's
``Dis.calc_dis_loss_real`` computes it (``hisd_r1.toml`` calls that method).
"""
import torch


def neus_eikonal(sdf_network, inputs, outputs):
    """NeuS's eikonal term (``models/renderer.py``: ``gradient_error``) on the gradients that
    ``SDFNetwork.gradient`` returned (upstream's ``autograd.grad(create_graph=True)``): the
    mean of ``(|grad sdf| - 1)^2`` over the points, every point inside the sphere."""
    gradients = outputs
    gradient_error = (torch.linalg.norm(gradients.reshape(-1, 3), ord=2, dim=-1) - 1.0) ** 2
    return gradient_error.mean()
