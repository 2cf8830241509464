"""Benchmark the HiSD port: one full trainer iteration, Jittor vs torch, and Jittor's live graph.

Run from the repository root in ``.venv`` with Jittor's settings (``make bench`` does both)::

    env $(python3 -m porter.machine.env --exports) PYTHONPATH=. .venv/bin/python bench/bench_hisd.py

In one run it times ``HiSD_Trainer.update`` (generator step with R1-free losses, discriminator
step with R1, EMA into ``gen_test``) and the inference forward pass ``HiSD_Trainer.sample`` (the
EMA generator's four translations, no gradients) of the converted ``models_ref/hisd`` and, in a
``.venv-torch`` subprocess, of the torch reference, on the same configuration (``--config``,
default ``celeba_hq_config``: upstream's networks at 128x128, batch 2) and the same draws; then it
runs ``--graph-iters``
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
from porter.prove.ported import import_ported  # noqa: E402
from porter.prove.torchside import torch_python  # noqa: E402

TORCH_SIDE = ROOT / "parity_tests" / "torch_side" / "hisd_bench.py"
RESULT = ROOT / "build" / "bench" / "hisd.json"


def jittor_iterations(n: int, warmup: int, seed: int, lived: bool = False, config: str = "tiny_config",
                      forward: bool = False):
    """Run ``warmup + n`` converted-trainer updates (``configs.<config>()``); the seconds of the
    last ``n``, when ``lived`` the live Var count after every update, and when ``forward`` the
    seconds of ``n`` timed ``sample`` calls (after ``warmup``) as a third item."""
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
    if not forward:
        return seconds, lived_vars
    forward_seconds = []
    for k, d in enumerate(configs.sample_draws(cfg, warmup + n, seed + 1)):
        x, z = jt.array(d["x"]), jt.array(d["z"])
        t0 = time.perf_counter()
        out = trainer.sample(x, x.flip([0]), d["j"], d["j_trg"], d["i"], z[:1], z[1:2])
        out[-1].sum().item()
        if k >= warmup:
            forward_seconds.append(time.perf_counter() - t0)
    return seconds, lived_vars, forward_seconds


def torch_env() -> dict:
    """The environment for the torch subprocess: ours without Python/Jittor-specific variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def torch_iterations(n: int, warmup: int, seed: int, config: str):
    """The torch reference's per-iteration seconds, measured in ``.venv-torch``."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([str(torch_python()), str(TORCH_SIDE), "--out", out, "--iters", str(n),
                               "--warmup", str(warmup), "--seed", str(seed), "--config", config],
                              cwd=ROOT, env=torch_env(),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{TORCH_SIDE.relative_to(ROOT)} failed:\n{proc.stderr[-4000:]}")
        return json.loads((Path(out) / "timing.json").read_text())


def main(argv=None) -> dict:
    """Run the benchmark; returns (and writes) the result dict."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=3, help="timed iterations per framework")
    ap.add_argument("--warmup", type=int, default=2, help="untimed iterations first (Jittor compiles)")
    ap.add_argument("--config", default="celeba_hq_config", help="a function of models_ref.hisd.configs")
    ap.add_argument("--graph-iters", type=int, default=200, help="iterations watched for graph growth")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    torch_res = torch_iterations(args.iters, args.warmup, args.seed, args.config)
    jt_seconds, _, jt_forward = jittor_iterations(args.iters, args.warmup, args.seed, config=args.config,
                                                  forward=True)
    _, lived = jittor_iterations(args.graph_iters, 0, args.seed + 1, lived=True, config="micro_config")

    t_torch = statistics.median(torch_res["seconds"])
    t_jt = statistics.median(jt_seconds)
    f_torch, f_jt = statistics.median(torch_res["forward_seconds"]), statistics.median(jt_forward)
    cfg = getattr(import_ported("models_ref.hisd.configs"), args.config)()
    result = {
        "model": f"hisd {args.config} ({cfg['new_size']}x{cfg['new_size']}, batch {cfg['batch_size']}, "
                 f"{len(cfg['tags'])} tags)",
        "iteration": "HiSD_Trainer.update: gen step + dis step (R1) + EMA",
        "forward": "HiSD_Trainer.sample: four translations by the EMA generator, no gradients",
        "torch": {"median_s": t_torch, "seconds": torch_res["seconds"], "version": torch_res["framework"],
                  "threads": torch_res["threads"], "forward_median_s": f_torch,
                  "forward_seconds": torch_res["forward_seconds"]},
        "jittor": {"median_s": t_jt, "seconds": jt_seconds, "version": jt.__version__,
                   "forward_median_s": f_jt, "forward_seconds": jt_forward},
        "ratio_jittor_over_torch": t_jt / t_torch,
        "forward_ratio_jittor_over_torch": f_jt / f_torch,
        "lived_vars": {"config": "micro_config (32x32)", "iterations": len(lived), "first": lived[0],
                       "peak": max(lived), "last": lived[-1],
                       "peak_at": lived.index(max(lived)) + 1, "every_10": lived[::10]},
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1))
    lv = result["lived_vars"]
    print(f"{result['model']}, median of {args.iters} after {args.warmup} warm-up:")
    print(f"HiSD trainer iteration: torch {t_torch * 1e3:.1f} ms, "
          f"jittor {t_jt * 1e3:.1f} ms, ratio jittor/torch {result['ratio_jittor_over_torch']:.2f}")
    print(f"HiSD sample (forward): torch {f_torch * 1e3:.1f} ms, "
          f"jittor {f_jt * 1e3:.1f} ms, ratio jittor/torch {result['forward_ratio_jittor_over_torch']:.2f}")
    print(f"lived_vars over {lv['iterations']} iterations: first {lv['first']}, peak {lv['peak']} "
          f"(iteration {lv['peak_at']}), last {lv['last']}")
    print(f"written to {RESULT.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
