"""NeuS's losses in plain torch, as ``models/renderer.py`` and ``exp_runner.py`` write them: the
eikonal term on ``SDFNetwork.gradient`` (the ``loss = "neus_losses:neus_eikonal"`` of
``neus_eikonal.toml``) and the three terms of ``Runner.train`` on upstream's renderer
(``neus_train.toml``: ``NeuSNets``, ``neus_terms``).  ``jtport parity`` converts this file on
the fly for the Jittor side.  HiSD's R1 needs no such file: upstream's
``Dis.calc_dis_loss_real`` computes it (``hisd_r1.toml`` calls that method).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from models.fields import RenderingNetwork, SDFNetwork, SingleVarianceNetwork
from models.renderer import NeuSRenderer

IGR_WEIGHT, MASK_WEIGHT = 0.1, 0.1   # confs/wmask.conf: train.igr_weight, train.mask_weight


def neus_eikonal(sdf_network, inputs, outputs):
    """NeuS's eikonal term (``models/renderer.py``: ``gradient_error``) on the gradients that
    ``SDFNetwork.gradient`` returned (upstream's ``autograd.grad(create_graph=True)``): the
    mean of ``(|grad sdf| - 1)^2`` over the points, every point inside the sphere."""
    gradients = outputs
    gradient_error = (torch.linalg.norm(gradients.reshape(-1, 3), ord=2, dim=-1) - 1.0) ** 2
    return gradient_error.mean()


class NeuSNets(nn.Module):
    """``exp_runner.py``'s networks (``confs/wmask.conf``'s kinds, narrower) and its
    ``NeuSRenderer`` (no background NeRF: ``n_outside = 0``; ``perturb = 0``, so both sides
    sample the same depths).  Forward: ``render`` of rays from cameras at distance 3 in
    directions ``eye`` towards ``target`` points near the origin, with ``near``/``far`` from
    the unit sphere as ``dataset.near_far_from_sphere`` computes them; returns
    ``(color_fine, weight_sum, gradient_error)``."""

    def __init__(self, sdf_network, rendering_network, init_val=0.3, n_samples=16, n_importance=16,
                 up_sample_steps=4):
        super().__init__()
        self.sdf_network = SDFNetwork(**sdf_network)
        self.deviation_network = SingleVarianceNetwork(init_val)
        self.color_network = RenderingNetwork(**rendering_network)
        self.renderer = NeuSRenderer(None, self.sdf_network, self.deviation_network, self.color_network,
                                     n_samples, n_importance, 0, up_sample_steps, 0.0)

    def forward(self, eye, target):
        rays_o = 3.0 * F.normalize(eye, dim=-1)
        rays_d = F.normalize(target - rays_o, dim=-1)
        a = torch.sum(rays_d ** 2, dim=-1, keepdim=True)
        b = 2.0 * torch.sum(rays_o * rays_d, dim=-1, keepdim=True)
        mid = 0.5 * (-b) / a
        out = self.renderer.render(rays_o, rays_d, mid - 1.0, mid + 1.0)
        return out["color_fine"], out["weight_sum"], out["gradient_error"]


def neus_terms(nets, inputs, outputs):
    """``Runner.train``'s three terms by name on the render: ``color`` (masked L1 of the colour),
    ``eikonal`` (the renderer's ``gradient_error``) and ``mask`` (BCE of the weight sum against the
    mask), from the spec's seeded ``true_rgb`` and ``mask`` (thresholded as upstream does)."""
    color_fine, weight_sum, gradient_error = outputs
    mask = (inputs["mask"] > 0.5).to(color_fine.dtype)  # upstream: .float(); float64 in the reference run
    mask_sum = mask.sum() + 1e-5
    color_error = (color_fine - inputs["true_rgb"]) * mask
    color_fine_loss = F.l1_loss(color_error, torch.zeros_like(color_error), reduction="sum") / mask_sum
    mask_loss = F.binary_cross_entropy(weight_sum.clip(1e-3, 1.0 - 1e-3), mask)
    return {"color": color_fine_loss, "eikonal": gradient_error, "mask": mask_loss}


def neus_train_loss(nets, inputs, outputs):
    """``Runner.train``'s total: ``color + igr_weight * eikonal + mask_weight * mask``."""
    terms = neus_terms(nets, inputs, outputs)
    return terms["color"] + terms["eikonal"] * IGR_WEIGHT + terms["mask"] * MASK_WEIGHT
