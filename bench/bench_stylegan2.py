"""StyleGAN2: speed of the converted generator/discriminator vs the torch reference, and Jittor's
live-variable count over a long training run.

    env $(python3 -m porter.machine.env --exports) .venv/bin/python bench/bench_stylegan2.py \
        [--size paper256] [--iters 200]

1. Forward (no gradients) and forward + backward time of G and D (same sizes, same weights)
   under Jittor (the conversion of ``models_ref/stylegan2`` in ``build/ported``) and under torch
   (this script re-run by ``.venv-torch`` with ``--torch-side``), in the same invocation, printed
   as ratios.  ``--size paper256`` (default) is StyleGAN2-ADA's ``paper256`` configuration
   (256x256, channel base 16384 up to 512 channels, 8 mapping layers, z and w of 512) at batch 2;
   ``small`` is the 32x32, 64-channel network of the tests.
2. ``jt.number_of_lived_vars()`` every 10 of ``--iters`` full training iterations (four phases,
   Adam, G_ema): it must stay flat (Jittor's lazy graph must not grow, see jittor_gaps X5).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = {  # timed: (warm-up runs, timed runs) of each pass
    "small": dict(batch=4, timed=(2, 5), G=dict(z_dim=32, c_dim=0, w_dim=32, img_resolution=32, img_channels=3,
                                 mapping_kwargs=dict(num_layers=2),
                                 synthesis_kwargs=dict(channel_base=1024, channel_max=64, num_fp16_res=0,
                                                       conv_clamp=256)),
                  D=dict(c_dim=0, img_resolution=32, img_channels=3, channel_base=1024, channel_max=64,
                         num_fp16_res=0, conv_clamp=256)),
    # train.py --cfg=paper256 (float32: upstream's fp16 layers run on CUDA only)
    "paper256": dict(batch=2, timed=(1, 3), G=dict(z_dim=512, c_dim=0, w_dim=512, img_resolution=256, img_channels=3,
                                     mapping_kwargs=dict(num_layers=8),
                                     synthesis_kwargs=dict(channel_base=16384, channel_max=512, num_fp16_res=0,
                                                           conv_clamp=256)),
                     D=dict(c_dim=0, img_resolution=256, img_channels=3, channel_base=16384, channel_max=512,
                            num_fp16_res=0, conv_clamp=256)),
}


def _inputs(size: dict):
    import numpy as np

    rng = np.random.default_rng(0)
    res = size["G"]["img_resolution"]
    return (rng.standard_normal((size["batch"], size["G"]["z_dim"])).astype("float32"),
            rng.standard_normal((size["batch"], 3, res, res)).astype("float32"))


def _time(step, timed) -> float:
    """Median seconds of ``step()`` after warm-up (``timed``: warm-up runs, timed runs)."""
    warmup, runs = timed
    for _ in range(warmup):
        step()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def torch_side(size: dict) -> dict:
    """Forward and forward+backward seconds of the torch reference (runs in .venv-torch)."""
    import torch

    from models_ref.stylegan2 import networks

    torch.manual_seed(0)
    G, D = networks.Generator(**size["G"]), networks.Discriminator(**size["D"])
    z, img = (torch.from_numpy(a) for a in _inputs(size))

    def g_fwd():
        with torch.no_grad():
            G(z, None, noise_mode="const")

    def d_fwd():
        with torch.no_grad():
            D(img, None)

    def g_step():
        G.zero_grad(set_to_none=True)
        G(z, None, noise_mode="const").square().mean().backward()

    def d_step():
        D.zero_grad(set_to_none=True)
        D(img, None).square().mean().backward()
    timed = size["timed"]
    return {"G": _time(g_step, timed), "D": _time(d_step, timed), "G_fwd": _time(g_fwd, timed),
            "D_fwd": _time(d_fwd, timed), "threads": torch.get_num_threads()}


def jittor_side(size: dict) -> dict:
    """Forward and forward+backward seconds of the converted networks."""
    import jittor as jt

    from porter.prove.ported import import_ported

    networks = import_ported("models_ref.stylegan2.networks")
    jt.set_global_seed(0)
    G, D = networks.Generator(**size["G"]), networks.Discriminator(**size["D"])
    z, img = (jt.array(a) for a in _inputs(size))
    g_params, d_params = G.parameters(), D.parameters()

    def g_fwd():
        with jt.no_grad():
            G(z, None, noise_mode="const").sync()

    def d_fwd():
        with jt.no_grad():
            D(img, None).sync()

    def g_step():
        jt.sync(jt.grad(G(z, None, noise_mode="const").sqr().mean(), g_params))

    def d_step():
        jt.sync(jt.grad(D(img, None).sqr().mean(), d_params))
    timed = size["timed"]
    return {"G": _time(g_step, timed), "D": _time(d_step, timed), "G_fwd": _time(g_fwd, timed),
            "D_fwd": _time(d_fwd, timed)}


def lived_vars(iters: int) -> list:
    """``(iteration, lived vars)`` every 10 iterations of full StyleGAN2 training."""
    import jittor as jt
    import numpy as np

    from porter.prove.ported import import_ported
    from models_ref.stylegan2 import parity_config as cfg

    nets = import_ported("models_ref.stylegan2.networks")
    lossmod = import_ported("models_ref.stylegan2.loss")
    training = import_ported("models_ref.stylegan2.training")
    jt.set_global_seed(0)
    G, D = nets.Generator(**cfg.GENERATOR), nets.Discriminator(**cfg.DISCRIMINATOR)
    G_ema = training.make_ema(G)
    G.requires_grad_(False)
    D.requires_grad_(False)
    phases = training.make_phases(G, D, cfg.G_OPT, cfg.D_OPT, **cfg.REG_INTERVALS)
    loss = lossmod.StyleGAN2Loss("cpu", G.mapping, G.synthesis, D, rand=cfg.Draws(jt.array), **cfg.LOSS)
    samples = []
    for it in range(iters):
        b = cfg.train_batch(it % 4)
        training.training_iteration(phases, loss, G, G_ema, it, jt.array(b["real_img"]), jt.array(b["real_c"]),
                                    [jt.array(z) for z in b["gen_z"]], [jt.array(c) for c in b["gen_c"]],
                                    cfg.EMA_BETA)
        if (it + 1) % 10 == 0:
            jt.sync_all()
            jt.gc()
            samples.append((it + 1, int(jt.number_of_lived_vars())))
    assert np.isfinite(G_ema.synthesis.b4.const.numpy()).all()
    return samples


def main() -> int:
    """Run both parts and print the figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-side", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--iters", type=int, default=200, help="training iterations for the lived-vars probe")
    ap.add_argument("--size", choices=sorted(SIZES), default="paper256")
    args = ap.parse_args()
    size = SIZES[args.size]
    if args.torch_side:
        print(json.dumps(torch_side(size)))
        return 0

    import shims  # noqa: F401  (Jittor environment first)
    from porter.prove.torchside import torch_python

    proc = subprocess.run([str(torch_python()), __file__, "--torch-side", "--size", args.size], cwd=ROOT,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return 1
    t = json.loads(proc.stdout.strip().splitlines()[-1])
    j = jittor_side(size)
    res = size["G"]["img_resolution"]
    warmup, runs = size["timed"]
    print(f"StyleGAN2 {args.size}: batch {size['batch']}, {res}x{res}, median of {runs} after {warmup} warm-up "
          f"(torch threads: {t['threads']})")
    print(f"{'net':<4} {'pass':<8} {'torch s':>9} {'jittor s':>9} {'jittor/torch':>13}")
    for net in ("G", "D"):
        for key, what in ((net + "_fwd", "fwd"), (net, "fwd+bwd")):
            print(f"{net:<4} {what:<8} {t[key]:>9.4f} {j[key]:>9.4f} {j[key] / t[key]:>13.2f}")

    samples = lived_vars(args.iters)
    first, last = samples[0][1], samples[-1][1]
    print(f"lived vars over {args.iters} training iterations (every 10): {[n for _, n in samples]}")
    flat = last <= first * 1.05 + 10
    print(f"lived vars {'flat' if flat else 'GROWING'}: {first} after 10 iterations, {last} after {args.iters}")
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
