"""What IEEE arithmetic costs: Jittor's kernels with jtport's IEEE flags against -Ofast.

    PYTHONPATH=. .venv/bin/python bench/bench_arithmetic.py [--rounds 5] [--kernel-flags "-O3 ..."]...

Jittor compiles its kernels with ``-Ofast`` unless ``cc_flags`` names an optimisation level;
jtport sets ``cc_flags=-O2`` (``porter/machine/env.py``) so that ``1/0`` is inf and ``2/1`` is 2, and
``kernel_flags`` (``IEEE_KERNEL_FLAGS``) that let g++ vectorise without changing a result;
``JTPORT_FAST_MATH=1`` opts back into ``-Ofast``.  The setting is read when Jittor is imported,
so each mode runs in a child process of its own (each with its own kernel cache); the children
take turns, one round each, so a shared machine's load falls on both alike, and the ratio is of
the medians.  Convolutions and matmuls run on oneDNN in both modes (unaffected); what changes is
Jittor's own elementwise and reduction kernels, which the workloads below exercise:

  eltwise    a chain of elementwise ops with a division, 4M float32
  reduce     sums over the last axis of a 4096x1024 float32 tensor, forward and backward
  softmax    softmax over 1024x1024 and its gradient
  normnet    a conv + batch norm + leaky ReLU + pooling net, batch 8, 32x64x64, forward+backward

``--kernel-flags FLAGS`` (repeatable) adds a candidate: jtport's IEEE settings with ``FLAGS`` as
Jittor's ``kernel_flags`` (g++ flags for its kernels only, after ``cc_flags``), in a cache of its own
named by the flags (its first run compiles Jittor's core there once: minutes).  ``--kernel-flags ""``
is plain ``-O2``.  Every mode is timed in the same rounds and reported as a ratio to ``-Ofast``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ("eltwise", "reduce", "softmax", "normnet")
#: jtport's default (``ieee``), and ``-Ofast``; ``--kernel-flags ""`` adds plain ``-O2``
MODES = {"ieee": {}, "fast": {"JTPORT_FAST_MATH": "1"}}


def candidate_mode(flags: str) -> dict:
    """The environment of a ``--kernel-flags`` candidate: IEEE kernels plus ``flags``, in its own cache."""
    digest = hashlib.sha1(flags.encode()).hexdigest()[:8]
    # plain -O2 was jtport's default until 2026-11-28: its kernels are in that default's cache
    return {"kernel_flags": flags, "cache_name": f"jtport_bench_{digest}" if flags.strip() else "jtport_ieee"}


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


def _start(mode_env: dict) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JTPORT_")
           and k not in ("cc_flags", "kernel_flags", "cache_name")}
    env.update(mode_env, PYTHONPATH=str(ROOT))
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
    """Time every workload in every mode, interleaved, and print each mode's ratio to -Ofast."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kernel-flags", action="append", default=[], metavar="FLAGS",
                    help="a candidate: IEEE kernels with these extra g++ flags (repeatable)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help="comma-separated subset of " + ", ".join(WORKLOADS))
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child()
        return 0
    modes = dict(MODES, **{f"k{i}": candidate_mode(f) for i, f in enumerate(args.kernel_flags, 1)})
    for i, flags in enumerate(args.kernel_flags, 1):
        print(f"k{i}: kernel_flags={flags!r}")
    procs = {}
    rows = []
    try:
        for mode, mode_env in modes.items():
            procs[mode] = _start(mode_env)
        others = [m for m in modes if m != "fast"]
        print(f"{'workload':10s} {'-Ofast s':>9s}" + "".join(f" {m + ' s':>9s} {'ratio':>6s}" for m in others))
        for name in args.workloads.split(","):
            times = {mode: [] for mode in modes}
            for _ in range(args.rounds):
                for mode, proc in procs.items():
                    times[mode].append(_time(proc, name))
            med = {mode: statistics.median(t) for mode, t in times.items()}
            row = {"workload": name, "fast_s": med["fast"]}
            for m in others:
                row[f"{m}_s"], row[f"{m}_ratio"] = med[m], med[m] / med["fast"]
            rows.append(row)
            print(f"{name:10s} {med['fast']:9.4f}"
                  + "".join(f" {med[m]:9.4f} {med[m] / med['fast']:6.2f}" for m in others), flush=True)
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
