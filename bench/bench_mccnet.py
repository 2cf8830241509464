"""Benchmark the MCCNet port: ``Net`` forward + backward, Jittor vs torch, in one run.

Run from the repository root in ``.venv`` with Jittor's settings (``make bench`` does both)::

    env $(python3 -m porter.machine.env --exports) PYTHONPATH=. .venv/bin/python bench/bench_mccnet.py

Times one training iteration's compute of the converted ``models_ref/mccnet`` ``Net``: the
forward pass (six encoder passes, four decoder passes, upstream's six losses) at 256x256,
batch 2, upstream's weighted loss, and the gradients of every decoder and MCC parameter
(``jt.grad``, then ``jt.sync_all``); then the same forward pass without gradients; and, in a
``.venv-torch`` subprocess, the torch reference on the same inputs (``loss.backward()``).
Prints the ratios and writes
``build/bench/mccnet.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import shims  # noqa: E402,F401  (applies Jittor's settings before Jittor is imported)
import jittor as jt  # noqa: E402
from bench.bench_hisd import torch_env  # noqa: E402
from porter.prove.common import make_inputs  # noqa: E402
from porter.prove.ported import import_ported  # noqa: E402
from porter.prove.torchside import torch_python  # noqa: E402

TORCH_SIDE = ROOT / "parity_tests" / "torch_side" / "mccnet_bench.py"
RESULT = ROOT / "build" / "bench" / "mccnet.json"
# upstream train.py's weights of (noise, content, style, identity1, identity2, tv)
LOSS_WEIGHTS = (3000.0, 3.0, 10.0, 70.0, 1.0, 10e-5)


def bench_inputs(batch: int, size: int, seed: int):
    """The same seeded content/style/noise arrays as the torch side's ``bench_inputs``."""
    image = (batch, 3, size, size)
    return make_inputs({"content": {"shape": image, "dist": "uniform"},
                        "style": {"shape": image, "dist": "uniform"},
                        "noise": {"shape": image, "dist": "uniform", "low": -0.03, "high": 0.03}}, seed)


def jittor_iterations(n: int, warmup: int, size: int, batch: int, seed: int):
    """Seconds of the last ``n`` of ``warmup + n`` forward+backward passes of the converted Net,
    then of as many forward passes without gradients (the same loss)."""
    net = import_ported("models_ref.mccnet.net")
    jt.set_global_seed(seed)
    network = net.Net(net.vgg, net.decoder)
    network.train()
    params = [p for p in network.parameters() if p.requires_grad]
    inputs = {k: jt.array(v) for k, v in bench_inputs(batch, size, seed).items()}

    def weighted_loss():
        outs = network(inputs["content"], inputs["style"], inputs["noise"])
        loss = outs[0] * LOSS_WEIGHTS[0]
        for w, part in zip(LOSS_WEIGHTS[1:], outs[1:6]):
            loss = loss + part * w
        return loss.sum()

    seconds, forward = [], []
    for k in range(warmup + n):
        t0 = time.perf_counter()
        jt.sync(jt.grad(weighted_loss(), params))
        jt.sync_all()
        if k >= warmup:
            seconds.append(time.perf_counter() - t0)
    for k in range(warmup + n):
        t0 = time.perf_counter()
        with jt.no_grad():
            weighted_loss().item()
        if k >= warmup:
            forward.append(time.perf_counter() - t0)
    return seconds, forward


def torch_iterations(n: int, warmup: int, size: int, batch: int, seed: int):
    """The torch reference's per-iteration seconds, measured in ``.venv-torch``."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([str(torch_python()), str(TORCH_SIDE), "--out", out, "--iters", str(n),
                               "--warmup", str(warmup), "--size", str(size), "--batch", str(batch),
                               "--seed", str(seed)],
                              cwd=ROOT, env=torch_env(), capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{TORCH_SIDE.relative_to(ROOT)} failed:\n{proc.stderr[-4000:]}")
        return json.loads((Path(out) / "timing.json").read_text())


def main(argv=None) -> dict:
    """Run the benchmark; returns (and writes) the result dict."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=3, help="timed iterations per framework")
    ap.add_argument("--warmup", type=int, default=1, help="untimed iterations first (Jittor compiles)")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.iters < 1 or args.size < 16 or args.size % 16 or args.batch < 1:
        ap.error("need --iters >= 1, --batch >= 1 and --size a multiple of 16 (>= 16): "
                 "the encoder halves the image four times")

    torch_res = torch_iterations(args.iters, args.warmup, args.size, args.batch, args.seed)
    jt_seconds, jt_forward = jittor_iterations(args.iters, args.warmup, args.size, args.batch, args.seed)
    t_torch = statistics.median(torch_res["seconds"])
    t_jt = statistics.median(jt_seconds)
    f_torch, f_jt = statistics.median(torch_res["forward_seconds"]), statistics.median(jt_forward)
    result = {
        "model": f"MCCNet Net (full VGG-19 encoder), {args.size}x{args.size}, batch {args.batch}",
        "iteration": "Net.forward (6 encoder + 4 decoder passes, 6 losses) + gradients of decoder and MCC",
        "torch": {"median_s": t_torch, "seconds": torch_res["seconds"], "version": torch_res["framework"],
                  "threads": torch_res["threads"], "forward_median_s": f_torch,
                  "forward_seconds": torch_res["forward_seconds"]},
        "jittor": {"median_s": t_jt, "seconds": jt_seconds, "version": jt.__version__,
                   "forward_median_s": f_jt, "forward_seconds": jt_forward},
        "ratio_jittor_over_torch": t_jt / t_torch,
        "forward_ratio_jittor_over_torch": f_jt / f_torch,
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1))
    print(f"MCCNet Net forward+backward {args.size}x{args.size} batch {args.batch} (median of {args.iters}): "
          f"torch {t_torch:.2f} s, jittor {t_jt:.2f} s, ratio jittor/torch {result['ratio_jittor_over_torch']:.2f}")
    print(f"MCCNet Net forward (no gradients): torch {f_torch:.2f} s, jittor {f_jt:.2f} s, "
          f"ratio jittor/torch {result['forward_ratio_jittor_over_torch']:.2f}")
    print(f"written to {RESULT.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
