"""The speed cost of float64 statistics in the normalisation layers (``shims.nn.norm._moments``).

BatchNorm, GroupNorm, InstanceNorm and LayerNorm sum their mean and variance in float64 on the
CPU (``float_mean``): Jittor's float32 kernels add the terms one after another, 44x torch's
float32 error over 2^20 terms per channel.  Each case runs forward + backward (training mode)
with those float64 sums and with plain float32 ``mean`` in their place, interleaved in one
run.  Prints the median milliseconds of each and the ratio float64/float32.
Usage: ``python bench/bench_norm_stats.py [--repeat 10]``.
"""
from __future__ import annotations

import functools
import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # interleaved.py, however the script is started

import shims  # noqa: E402
import shims.nn.norm as norm  # noqa: E402
from shims import jt  # noqa: E402

from interleaved import compare_table  # noqa: E402


@contextlib.contextmanager
def float32_statistics():
    """Inside the block the norm layers' statistics are Jittor's float32 means (the baseline)."""
    wide = norm.float_mean
    norm.float_mean = lambda x, dims, keepdims=False: x.mean(dims, keepdims=keepdims)
    try:
        yield
    finally:
        norm.float_mean = wide


def cases():
    """(name, input shape, layer)."""
    return [("BatchNorm2d(64) 8x64x64x64", (8, 64, 64, 64), shims.nn.BatchNorm2d(64)),
            ("GroupNorm(8, 64) 8x64x64x64", (8, 64, 64, 64), shims.nn.GroupNorm(8, 64)),
            ("InstanceNorm2d(64) 8x64x64x64", (8, 64, 64, 64), shims.nn.InstanceNorm2d(64, affine=True)),
            ("LayerNorm(256) 16384x256", (16384, 256), shims.nn.LayerNorm(256))]


def _once(layer, x) -> float:
    t = time.perf_counter()
    grads = jt.grad((layer(x) * x).sum(), list(layer.parameters()))
    jt.sync(grads)
    return time.perf_counter() - t


def main(argv=None) -> int:
    """Time every case (training mode) both ways; print medians and ratios."""
    rows = []
    for name, shape, layer in cases():
        layer.train()
        rows.append((name, shape, functools.partial(_once, layer)))
    return compare_table(rows, float32_statistics, ("float64 ms", "float32 ms"), argv)


if __name__ == "__main__":
    sys.exit(main())
