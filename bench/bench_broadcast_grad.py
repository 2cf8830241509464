"""The speed cost of float64 gradient sums over broadcasts (``shims.ops.broadcast_grad``).

Each case runs forward + backward with the broadcast operands widened (the default) and with
Jittor's own float32 broadcasts (``sequential_float32_sums``), interleaved in one run, fused as
a model runs: a bias and a per-channel scale over a feature map, a conv-bias-BatchNorm-ReLU
block, and a linear layer over many rows.  Prints the median milliseconds of each and the
ratio widened/plain.  Usage: ``python bench/bench_broadcast_grad.py [--repeat 10]``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # interleaved.py, however the script is started

import shims  # noqa: E402
from shims import jt  # noqa: E402
from shims.ops.broadcast_grad import sequential_float32_sums  # noqa: E402

from interleaved import compare_table  # noqa: E402


def cases():
    """(name, input shape, build() -> (params, f(x) -> scalar loss))."""
    def affine():
        b, g = jt.randn(16), jt.randn(16)
        return [b, g], lambda x: ((x * g.view(1, -1, 1, 1) + b.view(1, -1, 1, 1)) ** 2).sum()

    def block():
        conv, bn = shims.nn.Conv2d(16, 16, 3, padding=1), shims.nn.BatchNorm2d(16)
        params = [p for p in [*conv.parameters(), *bn.parameters()]]
        return params, lambda x: jt.nn.relu(bn(conv(x))).sum()

    def linear():
        lin = jt.nn.Linear(64, 64)
        return list(lin.parameters()), lambda x: (lin(x) ** 2).sum()

    return [("bias+scale 4x16x128x128", (4, 16, 128, 128), affine),
            ("conv3x3+BN+ReLU 16ch 4x16x64x64", (4, 16, 64, 64), block),
            ("linear 64->64 over 65536 rows", (65536, 64), linear)]


def _once(params, f, x) -> float:
    t = time.perf_counter()
    grads = jt.grad(f(x), params)
    jt.sync(grads)
    return time.perf_counter() - t


def _timed(build):
    """``once(x)`` for a case's ``build``: forward + backward of its loss, in seconds."""
    params, f = build()
    return lambda x: _once(params, f, x)


def main(argv=None) -> int:
    """Time every case both ways; print medians and ratios."""
    return compare_table([(name, shape, _timed(build)) for name, shape, build in cases()],
                         sequential_float32_sums, ("widened ms", "plain ms"), argv)


if __name__ == "__main__":
    sys.exit(main())
