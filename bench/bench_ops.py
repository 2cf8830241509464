"""``shims.ops`` against the nearest native Jittor call: time per call, forward + backward.

Each pair computes the same quantity (where Jittor's own call has different semantics, the
native side is the closest equivalent Jittor offers, e.g. ``x.var(dim, unbiased=True)``).
Usage: ``python bench/bench_ops.py [--shape 16 128 128] [--repeat 20]``.  Prints medians
(milliseconds) after one warm-up call (which compiles the kernels).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import shims  # noqa: E402
from shims import jt  # noqa: E402


def _time(fn, x, repeat: int, backward: bool) -> float:
    def once():
        y = fn(x)
        if backward:
            g = jt.grad(y.sum(), x)
            g.sync()
        else:
            y.sync()
    once()  # compile
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        once()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def pairs(shape):
    """(name, shim callable, native callable) triples."""
    n = shape[-1]
    return [
        ("var(dim=1)", lambda x: shims.var(x, 1), lambda x: x.var(1, unbiased=True)),
        ("std(dim=-1)", lambda x: shims.std(x, -1), lambda x: x.std(-1)),
        ("sum(dim=(0,2))", lambda x: shims.sum(x, (0, 2)), lambda x: x.sum(dims=(0, 2))),
        ("mean(full)", lambda x: shims.mean(x), lambda x: x.mean()),
        ("logsumexp(dim=1)", lambda x: shims.logsumexp(x, 1), lambda x: x.logsumexp(1)),
        ("norm(p=2, dim=-1)", lambda x: shims.norm(x, 2, -1), lambda x: x.norm(2, -1)),
        ("mm", lambda x: shims.mm(x.reshape(-1, n), x.reshape(-1, n).transpose(0, 1)[:, :64]),
         lambda x: jt.matmul(x.reshape(-1, n), x.reshape(-1, n).transpose(0, 1)[:, :64])),
        ("addcmul", lambda x: shims.addcmul(x, x, x, value=0.5), lambda x: x + 0.5 * x * x),
        ("cumprod(dim=-1, n=32)", lambda x: shims.cumprod(x[..., :32], -1), lambda x: jt.cumprod(x[..., :32], -1)),
        ("softmax(dim=1)", lambda x: shims.softmax(x, 1), lambda x: jt.nn.softmax(x, 1)),
    ]


def main(argv=None) -> int:
    """Print one row per op: shim ms, native ms, ratio (forward and forward+backward)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", type=int, nargs="+", default=[16, 128, 128])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    x = jt.array(np.random.default_rng(0).uniform(0.5, 2.0, args.shape).astype(np.float32))
    print(f"shape {tuple(args.shape)} float32, median of {args.repeat} (ms)")
    print(f"{'op':<26} {'shim fwd':>9} {'native fwd':>11} {'ratio':>6} {'shim f+b':>9} {'native f+b':>11} {'ratio':>6}")
    for name, s, n in pairs(args.shape):
        sf, nf = _time(s, x, args.repeat, False), _time(n, x, args.repeat, False)
        sb, nb = _time(s, x, args.repeat, True), _time(n, x, args.repeat, True)
        print(f"{name:<26} {sf:>9.2f} {nf:>11.2f} {sf / nf:>6.2f} {sb:>9.2f} {nb:>11.2f} {sb / nb:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
