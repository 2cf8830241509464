"""The cost of ``shims.views`` (in-place writes through torch's views): each view op records
``(base, kind, arg)`` on its result, and each in-place write looks for that record.

    env $(python3 shims/env.py --exports) PYTHONPATH=. .venv/bin/python bench/bench_views.py

Times, in one run and interleaved (rounds alternate the two), Jittor's own method (the one
``shims.views`` wraps, its ``__wrapped__``) against the recording one, on lazy ops (no kernel
runs: the bookkeeping alone):
  getitem   ``x[1:3, :2]``                 reshape  ``x.reshape(-1)``
  detach    ``x.detach()`` of a leaf       permute  ``x.permute(1, 0)``
  assign    ``y.assign(y + 1)`` on a Var that is no view (the lookup every in-place op pays)
and a whole step, ``mlp``: a 3-layer MLP forward+backward (batch 64, width 256), synced, with
and without the recording installed.  Prints the medians and the ratios (recording / Jittor's).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _time(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def _swap(on: bool, saved: dict) -> None:
    """Install (``on``) or remove shims.views' wrappers on ``jt.Var``."""
    import jittor as jt
    for name, (plain, wrapped) in saved.items():
        setattr(jt.Var, name, wrapped if on else plain)


def main() -> None:
    """Run the benchmark and print one line per case."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    import shims  # noqa: F401
    import jittor as jt
    import numpy as np

    names = ("__getitem__", "reshape", "view", "detach", "transpose", "permute", "assign", "__setitem__",
             "expand", "unsqueeze", "split")
    saved = {n: (getattr(jt.Var, n).__wrapped__, getattr(jt.Var, n)) for n in names}
    x = jt.randn(64, 256)
    x.sync()
    x.stop_grad()
    y = jt.randn(64, 256)
    ops = {
        "getitem": lambda: x[1:3, :2],
        "reshape": lambda: x.reshape(-1),
        "detach": lambda: x.detach(),
        "permute": lambda: x.permute(1, 0),
        "assign": lambda: y.assign(y + 1),
    }
    rng = np.random.default_rng(0)
    ws = [jt.array(rng.standard_normal((256, 256)).astype(np.float32) * 0.05) for _ in range(3)]
    inp = jt.array(rng.standard_normal((64, 256)).astype(np.float32))

    def mlp():
        h = inp
        for w in ws:
            h = jt.nn.relu(h @ w)
        loss = h[:, :128].sum() + h.reshape(-1)[:10].sum()
        jt.sync(jt.grad(loss, ws))

    times = {k: ([], []) for k in [*ops, "mlp"]}
    for _ in range(args.rounds):
        for on in (False, True):
            _swap(on, saved)
            for k, fn in ops.items():
                times[k][on].append(_time(fn, args.n))
                y.assign(jt.randn(64, 256))  # keeps the assign chain short
            times["mlp"][on].append(_time(mlp, 20))
    _swap(True, saved)
    print(f"{'case':10s} {'jittor us':>10s} {'views us':>10s} {'ratio':>6s}")
    for k, (off, on) in times.items():
        a, b = statistics.median(off) * 1e6, statistics.median(on) * 1e6
        print(f"{k:10s} {a:10.2f} {b:10.2f} {b / a:6.2f}")


if __name__ == "__main__":
    main()
