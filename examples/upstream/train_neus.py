"""NeuS's training iteration (github.com/Totoro97/NeuS) on tiny synthetic rays.

``exp_runner.py``'s ``Runner`` reads a dataset from disk and parses a pyhocon conf when it is
built, so it is not instantiated: ``Runner.__init__``'s network/optimizer/renderer lines and the
body of ``Runner.train``'s loop are reproduced here, only their few lines (``Dataset``'s
``near_far_from_sphere``, the mask threshold, ``NeuSRenderer.render``, the colour/eikonal/mask
loss combination, ``zero_grad``/``backward``/``step`` and ``update_learning_rate``). The networks
are upstream's ``models.fields`` ``NeRF``, ``SDFNetwork``, ``SingleVarianceNetwork`` and
``RenderingNetwork`` with ``confs/wmask.conf``'s settings made tiny (narrow, shallow, low
``multires``), and ``models.renderer.NeuSRenderer`` with few samples. As in wmask.conf the
background ``NeRF`` is built and optimised but unused (``n_outside = 0``); ``build(conf="womask")``
takes womask.conf's differences instead (background NeRF rendered with ``n_outside`` samples, no
mask loss: with a background every ray's weights sum to 1).
"""
import numpy as np
import torch
import torch.nn.functional as F
from models.fields import NeRF, RenderingNetwork, SDFNetwork, SingleVarianceNetwork
from models.renderer import NeuSRenderer

_MODEL = dict(
    nerf=dict(D=3, d_in=4, d_in_view=3, W=16, multires=2, multires_view=2, output_ch=4, skips=[1],
              use_viewdirs=True),
    sdf_network=dict(d_out=17, d_in=3, d_hidden=16, n_layers=3, skip_in=[2], multires=2, bias=0.5, scale=1.0,
                     geometric_init=True, weight_norm=True),
    variance_network=dict(init_val=0.3),
    rendering_network=dict(d_feature=16, mode="idr", d_in=9, d_out=3, d_hidden=16, n_layers=2, weight_norm=True,
                           multires_view=2, squeeze_out=True),
    neus_renderer=dict(n_samples=8, n_importance=8, n_outside=0, up_sample_steps=2, perturb=1.0),
)
_TRAIN = dict(learning_rate=5e-4, learning_rate_alpha=0.05, end_iter=1000, warm_up_end=2, anneal_end=0.0,
              use_white_bkgd=False, igr_weight=0.1, mask_weight=0.1)
_WOMASK = dict(n_outside=4, mask_weight=0.0)  # womask.conf's differences (n_outside 32 there)


def near_far_from_sphere(rays_o, rays_d):
    """``models.dataset.Dataset.near_far_from_sphere``'s few lines (Dataset itself reads images)."""
    a = torch.sum(rays_d ** 2, dim=-1, keepdim=True)
    b = 2.0 * torch.sum(rays_o * rays_d, dim=-1, keepdim=True)
    mid = 0.5 * (-b) / a
    return mid - 1.0, mid + 1.0


def build(seed: int = 0, batch_size: int = 64, conf: str = "wmask"):
    """Build NeuS's four networks, their Adam and the renderer as ``Runner.__init__`` does (tiny
    ``conf``: "wmask" or "womask"); return ``step()``, one iteration of ``Runner.train``'s loop on
    ``batch_size`` random rays aimed at the unit sphere, returning the weighted loss terms (their
    sum is the loss)."""
    torch.manual_seed(seed)
    t = dict(_TRAIN, mask_weight=_WOMASK["mask_weight"]) if conf == "womask" else _TRAIN
    renderer_conf = dict(_MODEL["neus_renderer"], n_outside=_WOMASK["n_outside"] if conf == "womask" else 0)
    nerf_outside = NeRF(**_MODEL["nerf"])
    sdf_network = SDFNetwork(**_MODEL["sdf_network"])
    deviation_network = SingleVarianceNetwork(**_MODEL["variance_network"])
    color_network = RenderingNetwork(**_MODEL["rendering_network"])
    params_to_train = []
    for net in (nerf_outside, sdf_network, deviation_network, color_network):
        params_to_train += list(net.parameters())
    optimizer = torch.optim.Adam(params_to_train, lr=t["learning_rate"])
    renderer = NeuSRenderer(nerf_outside, sdf_network, deviation_network, color_network, **renderer_conf)
    state = {"iter_step": 0}

    def update_learning_rate():
        """``Runner.update_learning_rate``: linear warm-up, then cosine decay to ``alpha``."""
        if state["iter_step"] < t["warm_up_end"]:
            learning_factor = state["iter_step"] / t["warm_up_end"]
        else:
            alpha = t["learning_rate_alpha"]
            progress = (state["iter_step"] - t["warm_up_end"]) / (t["end_iter"] - t["warm_up_end"])
            learning_factor = (np.cos(np.pi * progress) + 1.0) * 0.5 * (1 - alpha) + alpha
        for g in optimizer.param_groups:
            g["lr"] = t["learning_rate"] * learning_factor

    update_learning_rate()  # as Runner.train does before its loop

    def step():
        """One pass of ``Runner.train``'s loop body (without its logging, checkpoints, validation)."""
        # synthetic stand-in for dataset.gen_random_rays_at: cameras at radius ~2.5 looking at the sphere
        rays_o = F.normalize(torch.randn(batch_size, 3), dim=-1) * 2.5
        rays_d = F.normalize(-rays_o + 0.5 * torch.randn(batch_size, 3), dim=-1)
        true_rgb = torch.rand(batch_size, 3)
        mask = torch.rand(batch_size, 1)
        near, far = near_far_from_sphere(rays_o, rays_d)
        background_rgb = torch.ones([1, 3]) if t["use_white_bkgd"] else None
        if t["mask_weight"] > 0.0:  # noqa: SIM108 (upstream NeuS's code, kept as written)
            mask = (mask > 0.5).float()
        else:
            mask = torch.ones_like(mask)
        mask_sum = mask.sum() + 1e-5
        cos_anneal_ratio = 1.0 if t["anneal_end"] == 0.0 else np.min([1.0, state["iter_step"] / t["anneal_end"]])
        render_out = renderer.render(rays_o, rays_d, near, far, background_rgb=background_rgb,
                                     cos_anneal_ratio=cos_anneal_ratio)
        color_fine = render_out["color_fine"]
        weight_sum = render_out["weight_sum"]
        color_error = (color_fine - true_rgb) * mask
        color_fine_loss = F.l1_loss(color_error, torch.zeros_like(color_error), reduction="sum") / mask_sum
        eikonal_loss = render_out["gradient_error"]
        mask_loss = F.binary_cross_entropy(weight_sum.clip(1e-3, 1.0 - 1e-3), mask)
        loss = color_fine_loss + eikonal_loss * t["igr_weight"] + mask_loss * t["mask_weight"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state["iter_step"] += 1
        update_learning_rate()
        return {"color_fine_loss": color_fine_loss.detach(),
                "eikonal_loss*igr_weight": (eikonal_loss * t["igr_weight"]).detach(),
                "mask_loss*mask_weight": (mask_loss * t["mask_weight"]).detach()}

    return step
