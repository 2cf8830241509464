"""What IEEE arithmetic costs: Jittor's kernels at -O2 (jtport's default) against -Ofast.

    PYTHONPATH=. .venv/bin/python bench/bench_arithmetic.py [--rounds 5]

Jittor compiles its kernels with ``-Ofast`` unless ``cc_flags`` names an optimisation level;
jtport sets ``cc_flags=-O2`` (``porter/machine/env.py``) so that ``1/0`` is inf and ``2/1`` is 2, and
``JTPORT_FAST_MATH=1`` opts back into ``-Ofast``.  The setting is read when Jittor is imported,
so each mode runs in a child process of its own (each with its own kernel cache); the children
take turns, one round each, so a shared machine's load falls on both alike, and the ratio is of
the medians.  Convolutions and matmuls run on oneDNN in both modes (unaffected); what changes is
Jittor's own elementwise and reduction kernels, which the workloads below exercise:

  eltwise    a chain of elementwise ops with a division, 4M float32
  reduce     sums over the last axis of a 4096x1024 float32 tensor, forward and backward
  softmax    softmax over 1024x1024 and its gradient
  normnet    a conv + batch norm + leaky ReLU + pooling net, batch 8, 32x64x64, forward+backward
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ("eltwise", "reduce", "softmax", "normnet")
MODES = {"ieee": {}, "fast": {"JTPORT_FAST_MATH": "1"}}


def _workload(name: str):
    """A callable running one step of ``name`` to completion (in the child)."""
    import numpy as np
    import shims  # noqa: F401  (Jittor's settings first)
    import jittor as jt

    rng = np.random.default_rng(0)
    if name == "eltwise":
        x = jt.array(rng.standard_normal(1 << 22).astype(np.float32))
        y = jt.array(rng.uniform(0.5, 2.0, 1 << 22).astype(np.float32))
        return lambda: ((x * 1.5 + y).exp() / (1.0 + x.abs()) - y.sqrt() / y).sync()
    if name == "reduce":
        x = jt.array(rng.standard_normal((4096, 1024)).astype(np.float32))
        w = jt.array(rng.standard_normal((4096, 1)).astype(np.float32))
        return lambda: jt.grad((x.sum(1, keepdims=True) * w).sum(), x).sync()
    if name == "softmax":
        x = jt.array(rng.standard_normal((1024, 1024)).astype(np.float32))
        w = jt.array(rng.standard_normal((1024, 1024)).astype(np.float32))
        return lambda: jt.grad((jt.nn.softmax(x, -1) * w).sum(), x).sync()
    if name == "normnet":
        import shims.nn as snn
        net = snn.Sequential(snn.Conv2d(32, 32, 3, padding=1), snn.BatchNorm2d(32), snn.LeakyReLU(0.2),
                             snn.MaxPool2d(2), snn.Conv2d(32, 32, 3, padding=1), snn.BatchNorm2d(32))
        x = jt.array(rng.standard_normal((8, 32, 64, 64)).astype(np.float32))
        params = net.parameters()
        return lambda: jt.sync(jt.grad((net(x) ** 2).mean(), params))
    raise ValueError(name)


def child() -> None:
    """Serve timing requests on stdin: a workload name in, its seconds for one step out."""
    steps = {}
    for line in sys.stdin:
        name = line.strip()
        if name not in steps:
            steps[name] = _workload(name)
            for _ in range(2):  # compile and warm
                steps[name]()
        t = time.perf_counter()
        steps[name]()
        print(json.dumps({"s": time.perf_counter() - t}), flush=True)


def _start(mode: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("cc_flags", "cache_name", "JTPORT_FAST_MATH")}
    env.update(MODES[mode], PYTHONPATH=str(ROOT))
    # a cache whose core was built with other flags is rebuilt, and Jittor then exits asking for a rerun
    for _ in range(2):
        if subprocess.run([sys.executable, "-c", "import shims, jittor"], env=env, cwd=ROOT,
                          capture_output=True).returncode == 0:
            break
    return subprocess.Popen([sys.executable, __file__, "--child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, text=True, cwd=ROOT)


def _time(proc: subprocess.Popen, name: str) -> float:
    proc.stdin.write(name + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {name} child exited")
        if line.startswith("{"):
            return json.loads(line)["s"]


def main(argv=None) -> int:
    """Time every workload in both modes, interleaved, and print the -O2/-Ofast ratios."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child()
        return 0
    procs = {mode: _start(mode) for mode in MODES}
    rows = []
    try:
        print(f"{'workload':10s} {'-O2 (ieee) s':>13s} {'-Ofast s':>10s} {'ratio':>7s}")
        for name in WORKLOADS:
            times = {mode: [] for mode in MODES}
            for _ in range(args.rounds):
                for mode, proc in procs.items():
                    times[mode].append(_time(proc, name))
            ieee, fast = statistics.median(times["ieee"]), statistics.median(times["fast"])
            rows.append({"workload": name, "ieee_s": ieee, "fast_s": fast, "ratio": ieee / fast})
            print(f"{name:10s} {ieee:13.4f} {fast:10.4f} {ieee / fast:7.2f}", flush=True)
    finally:
        for proc in procs.values():
            proc.stdin.close()
            proc.terminate()  # SIGTERM: Jittor's SIGCHLD handler ignores only that one
            proc.wait()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
