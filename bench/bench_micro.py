"""Convolution, VGG-19 and matmul: Jittor vs torch time, paired and interleaved, in one run.

    env $(python3 -m porter.machine.env --exports) PYTHONPATH=. .venv/bin/python bench/bench_micro.py

Jittor runs here; torch runs in a ``.venv-torch`` child (this file with ``--torch-side``) that
times one case per request.  Each round times a case on torch, then on Jittor, so a shared
machine's load falls on both alike; the ratio is of the medians over ``--rounds`` rounds.
With oneDNN (``use_mkl=1``, ``jtport install-onednn``) Jittor's convolutions and matmuls run
on it; without it, on Jittor's own kernels (10-50x slower).

Cases (float32, the sizes of issue 15's measurements):
  conv      3x3 convolution, batch 2, 64->64 channels, 64x64, stride 1, padding 1
  vgg19     VGG-19 ``features`` (torchvision's layout), batch 2, 3x64x64
  matmul    1024x1024 @ 1024x1024
each forward (``fwd``) and forward+backward (``fwd+bwd``, gradients of input and weights).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# torchvision's vgg19 "E" configuration: channels, "M" = 2x2 max pool
VGG19 = (64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
         512, 512, 512, 512, "M")
CASES = ("conv", "vgg19", "matmul")
MODES = ("fwd", "fwd+bwd")


def inputs(case: str) -> dict:
    """The case's arrays (same seed on both sides)."""
    import numpy as np

    rng = np.random.default_rng(0)
    f = lambda *s: (rng.standard_normal(s) * 0.1).astype("float32")  # noqa: E731
    if case == "conv":
        return {"x": f(2, 64, 64, 64), "w": f(64, 64, 3, 3)}
    if case == "vgg19":
        return {"x": f(2, 3, 64, 64)}
    return {"a": f(1024, 1024), "b": f(1024, 1024)}


def timed(step, reps: int) -> float:
    """Median seconds of ``reps`` calls of ``step``."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_steps() -> dict:
    """(case, mode) -> a torch step (runs in .venv-torch)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    steps = {}
    conv = {k: torch.from_numpy(v).requires_grad_() for k, v in inputs("conv").items()}
    layers, c = [], 3
    for v in VGG19:
        layers += [nn.MaxPool2d(2, 2)] if v == "M" else [nn.Conv2d(c, v, 3, padding=1), nn.ReLU(inplace=True)]
        c = v if v != "M" else c
    vgg = nn.Sequential(*layers)
    vx = torch.from_numpy(inputs("vgg19")["x"]).requires_grad_()
    mm = {k: torch.from_numpy(v).requires_grad_() for k, v in inputs("matmul").items()}
    fwd = {"conv": lambda: torch.nn.functional.conv2d(conv["x"], conv["w"], padding=1),
           "vgg19": lambda: vgg(vx), "matmul": lambda: mm["a"] @ mm["b"]}
    for case, f in fwd.items():
        def forward(f=f):
            with torch.no_grad():
                f()

        def backward(f=f):
            f().square().mean().backward()
        steps[(case, "fwd")], steps[(case, "fwd+bwd")] = forward, backward
    return steps


def jittor_steps() -> dict:
    """(case, mode) -> a Jittor step."""
    import shims  # noqa: F401  (Jittor's settings first)
    import jittor as jt
    from jittor import nn

    jt.set_global_seed(0)
    conv = {k: jt.array(v) for k, v in inputs("conv").items()}
    layers, c = [], 3
    for v in VGG19:
        layers += [nn.Pool(2, 2, op="maximum")] if v == "M" else [nn.Conv2d(c, v, 3, padding=1), nn.ReLU()]
        c = v if v != "M" else c
    vgg = nn.Sequential(*layers)
    vx = jt.array(inputs("vgg19")["x"])
    mm = {k: jt.array(v) for k, v in inputs("matmul").items()}
    fwd = {"conv": (lambda: nn.conv2d(conv["x"], conv["w"], padding=1), [conv["x"], conv["w"]]),
           "vgg19": (lambda: vgg(vx), [vx] + vgg.parameters()),
           "matmul": (lambda: jt.matmul(mm["a"], mm["b"]), [mm["a"], mm["b"]])}
    steps = {}
    for case, (f, wrt) in fwd.items():
        def forward(f=f):
            with jt.no_grad():
                f().sync()

        def backward(f=f, wrt=wrt):
            jt.sync(jt.grad(f().sqr().mean(), wrt))
        steps[(case, "fwd")], steps[(case, "fwd+bwd")] = forward, backward
    return steps


def serve_torch() -> int:
    """Child loop: read ``case mode reps`` lines, answer the median seconds as JSON."""
    import torch

    steps = torch_steps()
    print(json.dumps({"threads": torch.get_num_threads()}), flush=True)
    for line in sys.stdin:
        case, mode, reps = line.split()
        print(json.dumps(timed(steps[(case, mode)], int(reps))), flush=True)
    return 0


class TorchChild:
    """The torch side, one request at a time."""

    def __init__(self):
        from porter.prove.torchside import torch_python

        self.proc = subprocess.Popen([str(torch_python()), __file__, "--torch-side"], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        self.threads = json.loads(self.proc.stdout.readline())["threads"]

    def time(self, case: str, mode: str, reps: int) -> float:
        """Median seconds of ``reps`` torch calls."""
        self.proc.stdin.write(f"{case} {mode} {reps}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        """End the child (closing its input ends its loop)."""
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(rounds: int, reps: int, cases=CASES) -> list:
    """``[(case, mode, torch s, jittor s)]``: medians over interleaved rounds."""
    import os

    steps = jittor_steps()
    child = TorchChild()
    rows = []
    try:
        for case in cases:
            for mode in MODES:
                child.time(case, mode, 1)
                steps[(case, mode)]()  # warm-up: Jittor compiles here
                t, j = [], []
                for _ in range(rounds):
                    t.append(child.time(case, mode, reps))
                    j.append(timed(steps[(case, mode)], reps))
                rows.append((case, mode, statistics.median(t), statistics.median(j)))
    finally:
        child.close()
    print(f"# use_mkl={os.environ.get('use_mkl', '1')} torch threads={child.threads}; medians of {rounds} "  # noqa: SIM112 (Jittor's own variable name)
          f"interleaved rounds of {reps} calls")
    return rows


def main(argv=None) -> int:
    """Print the table; ``--json FILE`` also writes it."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-side", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.torch_side:
        return serve_torch()
    rows = measure(args.rounds, args.reps, args.cases)
    print(f"{'case':<8} {'mode':<8} {'torch s':>9} {'jittor s':>9} {'jittor/torch':>13}")
    for case, mode, t, j in rows:
        print(f"{case:<8} {mode:<8} {t:>9.4f} {j:>9.4f} {j / t:>13.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps([dict(zip(("case", "mode", "torch_s", "jittor_s"), r))
                                               for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
