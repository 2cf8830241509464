"""Tie-exact max pooling (``shims.nn.max_pool2d``) vs the plain window max it replaced, in one run.

    env $(python3 shims/env.py --exports) PYTHONPATH=. .venv/bin/python bench/bench_max_pool.py

``plain`` is the previous shim: one ``reindex`` of the windows and Jittor's ``max`` reduction,
whose backward feeds every tied maximum.  ``exact`` finds torch's index per window and reads
through it (backward: a scatter-add to that index).  Each round times both on the same input,
alternating, so load on a shared machine falls on both alike; the ratio is exact/plain of the
medians.  Sizes are VGG-19's pools at batch 2 on a 256x256 image (MCCNet's training size) and a
3x3 stride-2 padded pool (ResNet's stem).
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = {  # name: (input shape, kernel, stride, padding)
    "vgg pool1 b2x64x256x256 k2": ((2, 64, 256, 256), 2, 2, 0),
    "vgg pool3 b2x256x64x64 k2": ((2, 256, 64, 64), 2, 2, 0),
    "resnet stem b2x64x128x128 k3s2p1": ((2, 64, 128, 128), 3, 2, 1),
}


def plain_pool(x, k, s, p):
    """The replaced shim: Jittor's max over a reindexed window view (ties all get the gradient)."""
    N, C, H, W = x.shape
    oh, ow = (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1
    win = x.reindex([N, C, oh, ow, k, k], ["i0", "i1", f"i2*{s}+i4-{p}", f"i3*{s}+i5-{p}"],
                    overflow_value=-math.inf)
    return win.max(dims=[4, 5])


def main(argv=None) -> int:
    """Print per case and mode the median seconds of both pools and their ratio."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    import jittor as jt
    import numpy as np

    from shims.nn import max_pool2d

    print(f"{'case':36} {'mode':8} {'plain s':>9} {'exact s':>9} {'exact/plain':>11}")
    for name, (shape, k, s, p) in CASES.items():
        x = jt.array((np.random.default_rng(0).standard_normal(shape)).astype("float32"))
        r = jt.array(np.random.default_rng(1).standard_normal(tuple(max_pool2d(x, k, s, p).shape)).astype("float32"))
        pools = {"plain": lambda v: plain_pool(v, k, s, p), "exact": lambda v: max_pool2d(v, k, s, p)}  # noqa: B023 (called within the iteration)
        for mode in ("fwd", "fwd+bwd"):
            def step(pool, mode=mode):
                y = pool(x)  # noqa: B023 (called within the iteration)
                if mode == "fwd":
                    y.sync()
                else:
                    jt.grad((y * r).sum(), x).sync()  # noqa: B023 (called within the iteration)
            times = {n: [] for n in pools}
            for _ in range(2):  # compile and warm both
                for pool in pools.values():
                    step(pool)
            for _ in range(args.rounds):
                for n, pool in pools.items():
                    t0 = time.perf_counter()
                    step(pool)
                    times[n].append(time.perf_counter() - t0)
            a, b = statistics.median(times["plain"]), statistics.median(times["exact"])
            print(f"{name:36} {mode:8} {a:9.4f} {b:9.4f} {b / a:11.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
