"""Benchmark the HiSD port: one full trainer iteration, Jittor vs torch, and Jittor's live graph.

Run from the repository root in ``.venv`` with Jittor's settings (``make bench`` does both)::

    env $(python3 shims/env.py --exports) PYTHONPATH=. .venv/bin/python bench/bench_hisd.py

In one run it times ``HiSD_Trainer.update`` (generator step with R1-free losses, discriminator
step with R1, EMA into ``gen_test``) of the converted ``models_ref/hisd`` and, in a
``.venv-torch`` subprocess, of the torch reference, on the same configuration
(``models_ref.hisd.configs.tiny_config``) and the same draws; then it runs ``--graph-iters``
Jittor iterations of ``micro_config`` and records ``jt.number_of_lived_vars()`` after each.  Prints a summary and
writes ``build/bench/hisd.json``.
"""
from __future__ import annotations

import argparse
import json
import os
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
from parity_tests.ported import import_ported  # noqa: E402
from porter.parity.torchside import torch_python  # noqa: E402

TORCH_SIDE = ROOT / "parity_tests" / "torch_side" / "hisd_bench.py"
RESULT = ROOT / "build" / "bench" / "hisd.json"


def jittor_iterations(n: int, warmup: int, seed: int, lived: bool = False, config: str = "tiny_config"):
    """Run ``warmup + n`` converted-trainer updates (``configs.<config>()``); the seconds of the
    last ``n`` and, when ``lived``, the live Var count after every update."""
    configs = import_ported("models_ref.hisd.configs")
    trainer_mod = import_ported("models_ref.hisd.trainer")
    jt.set_global_seed(seed)
    cfg = getattr(configs, config)()
    trainer = trainer_mod.HiSD_Trainer(cfg)
    seconds, lived_vars = [], []
    for k, d in enumerate(configs.sample_draws(cfg, warmup + n, seed)):
        batch = (jt.array(d["x"]), jt.array(d["y"]), d["i"], d["j"], d["j_trg"], jt.array(d["z"]))
        t0 = time.perf_counter()
        trainer.update(*batch)  # returns the losses' .item(): the step has been computed
        jt.sync_all()
        if k >= warmup:
            seconds.append(time.perf_counter() - t0)
        if lived:
            lived_vars.append(jt.number_of_lived_vars())
    return seconds, lived_vars


def torch_env() -> dict:
    """The environment for the torch subprocess: ours without Python/Jittor-specific variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def torch_iterations(n: int, warmup: int, seed: int):
    """The torch reference's per-iteration seconds, measured in ``.venv-torch``."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([str(torch_python()), str(TORCH_SIDE), "--out", out, "--iters", str(n),
                               "--warmup", str(warmup), "--seed", str(seed)],
                              cwd=ROOT, env=torch_env(),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{TORCH_SIDE.relative_to(ROOT)} failed:\n{proc.stderr[-4000:]}")
        return json.loads((Path(out) / "timing.json").read_text())


def main(argv=None) -> dict:
    """Run the benchmark; returns (and writes) the result dict."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=10, help="timed iterations per framework")
    ap.add_argument("--warmup", type=int, default=3, help="untimed iterations first (Jittor compiles)")
    ap.add_argument("--graph-iters", type=int, default=200, help="iterations watched for graph growth")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    torch_res = torch_iterations(args.iters, args.warmup, args.seed)
    jt_seconds, _ = jittor_iterations(args.iters, args.warmup, args.seed)
    _, lived = jittor_iterations(args.graph_iters, 0, args.seed + 1, lived=True, config="micro_config")

    t_torch = statistics.median(torch_res["seconds"])
    t_jt = statistics.median(jt_seconds)
    result = {
        "model": "hisd tiny_config (64x64, batch 2, 2 tags x 2 attributes)",
        "iteration": "HiSD_Trainer.update: gen step + dis step (R1) + EMA",
        "torch": {"median_s": t_torch, "seconds": torch_res["seconds"], "version": torch_res["framework"],
                  "threads": torch_res["threads"]},
        "jittor": {"median_s": t_jt, "seconds": jt_seconds, "version": jt.__version__},
        "ratio_jittor_over_torch": t_jt / t_torch,
        "lived_vars": {"config": "micro_config (32x32)", "iterations": len(lived), "first": lived[0],
                       "peak": max(lived), "last": lived[-1],
                       "peak_at": lived.index(max(lived)) + 1, "every_10": lived[::10]},
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1))
    lv = result["lived_vars"]
    print(f"HiSD trainer iteration (median of {args.iters}): torch {t_torch * 1e3:.1f} ms, "
          f"jittor {t_jt * 1e3:.1f} ms, ratio jittor/torch {result['ratio_jittor_over_torch']:.2f}")
    print(f"lived_vars over {lv['iterations']} iterations: first {lv['first']}, peak {lv['peak']} "
          f"(iteration {lv['peak_at']}), last {lv['last']}")
    print(f"written to {RESULT.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
