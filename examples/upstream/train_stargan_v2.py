"""StarGAN v2's training iteration (github.com/clovaai/stargan-v2) on tiny synthetic data.

``core/solver.py``'s ``Solver.__init__`` makes checkpoint folders (``CheckpointIO``) and ``train``
needs data loaders, so the few lines of both that a step needs are reproduced here: the nets from
``core.model.build_model(args)``, one Adam per net with Solver's lr/f_lr, betas and weight decay,
``core.utils.he_init`` on the trained nets (not the EMA copies), then the body of ``train``'s loop:
``core.data_loader.InputFetcher`` draws the inputs, ``core.solver.compute_d_loss`` latent-guided
and reference-guided (each followed by zeroing every optimizer, ``backward`` and the discriminator's
step), ``compute_g_loss`` latent-guided (generator, mapping network and style encoder steps) and
reference-guided (generator step), ``moving_average`` into the EMA nets and the lambda_ds decay.
Settings are main.py's defaults except img_size 32, style_dim 16 and w_hpf 0 (no FAN network).
"""
import argparse
import sys
import types

import torch


def _stand_in_landmark_deps():
    """core/wing.py imports OpenCV and scikit-image for the FAN, which w_hpf=0 never builds: where
    they are not installed, empty stand-ins let ``core.model`` import (nothing calls them)."""
    try:
        import cv2  # noqa: F401
    except ImportError:
        sys.modules["cv2"] = types.ModuleType("cv2")
    try:
        from skimage.filters import gaussian  # noqa: F401
    except ImportError:
        for name in ("skimage", "skimage.filters"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["skimage.filters"].gaussian = None


_stand_in_landmark_deps()
from core import utils  # noqa: E402
from core.data_loader import InputFetcher  # noqa: E402
from core.model import build_model  # noqa: E402
from core.solver import compute_d_loss, compute_g_loss, moving_average  # noqa: E402


def build(seed: int = 0, batch_size: int = 1):
    """Build the nets and their optimizers as Solver does and an ``InputFetcher`` over endless
    synthetic source and reference batches; return ``step()``, one iteration of ``Solver.train``'s
    loop that returns its four total losses (discriminator and generator, latent- and
    reference-guided)."""
    torch.manual_seed(seed)
    args = argparse.Namespace(img_size=32, num_domains=2, latent_dim=16, hidden_dim=512, style_dim=16,
                              w_hpf=0, lambda_reg=1.0, lambda_cyc=1.0, lambda_sty=1.0, lambda_ds=1.0,
                              ds_iter=100000, lr=1e-4, f_lr=1e-6, beta1=0.0, beta2=0.99, weight_decay=1e-4)
    nets, nets_ema = build_model(args)
    optims = {name: torch.optim.Adam(params=net.parameters(),
                                     lr=args.f_lr if name == "mapping_network" else args.lr,
                                     betas=[args.beta1, args.beta2], weight_decay=args.weight_decay)
              for name, net in nets.items()}
    for net in nets.values():
        net.apply(utils.he_init)

    def image():
        return torch.rand(batch_size, 3, args.img_size, args.img_size) * 2 - 1

    def label():
        return torch.randint(0, args.num_domains, (batch_size,))

    def loader(*parts):
        while True:
            yield tuple(part() for part in parts)

    fetcher = InputFetcher(loader(image, label), loader(image, image, label), args.latent_dim, "train")
    initial_lambda_ds = args.lambda_ds

    def reset_grad():
        for optim in optims.values():
            optim.zero_grad()

    def step():
        """One iteration of ``Solver.train``'s ``for`` body (logging, samples, checkpoints left out)."""
        inputs = next(fetcher)
        x_real, y_org = inputs.x_src, inputs.y_src
        x_ref, x_ref2, y_trg = inputs.x_ref, inputs.x_ref2, inputs.y_ref
        z_trg, z_trg2 = inputs.z_trg, inputs.z_trg2
        losses = {}
        for kind, guide in (("latent", dict(z_trg=z_trg)), ("ref", dict(x_ref=x_ref))):
            d_loss, _ = compute_d_loss(nets, args, x_real, y_org, y_trg, masks=None, **guide)
            reset_grad()
            d_loss.backward()
            optims["discriminator"].step()
            losses["d_loss_" + kind] = d_loss.item()
        for kind, guide in (("latent", dict(z_trgs=[z_trg, z_trg2])), ("ref", dict(x_refs=[x_ref, x_ref2]))):
            g_loss, _ = compute_g_loss(nets, args, x_real, y_org, y_trg, masks=None, **guide)
            reset_grad()
            g_loss.backward()
            optims["generator"].step()
            if kind == "latent":
                optims["mapping_network"].step()
                optims["style_encoder"].step()
            losses["g_loss_" + kind] = g_loss.item()
        for name in ("generator", "mapping_network", "style_encoder"):
            moving_average(nets[name], nets_ema[name], beta=0.999)
        if args.lambda_ds > 0:
            args.lambda_ds -= initial_lambda_ds / args.ds_iter
        return losses

    return step
