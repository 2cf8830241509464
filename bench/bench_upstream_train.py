"""Run the five seed systems' training steps, converted, for a few iterations on tiny data.

Usage: ``python bench/bench_upstream_train.py CLONES_DIR [--only NAME ...] [--iters 8]
[--torch-python PATH] [--timeout 900]``

For each clone in ``CLONES_DIR`` that has a driver in ``examples/upstream/train_<name>.py``
(``stylegan2-ada-pytorch``, ``MCCNet``, ``HiSD``, ``stargan-v2``, ``NeuS``): convert the clone
and the driver with ``jtport convert`` (into a temporary folder; the clone is only read), then
run the converted driver under Jittor in a plain child process (PATH, HOME and PYTHONPATH only,
nothing imported first), and the original driver on the original clone under torch. A driver is
plain torch written as upstream's training loop writes its step: ``build(seed)`` makes the
networks at a small configuration, their optimizers and tiny synthetic data, and returns
``step()``, one training iteration (forward, losses, backward, optimizer steps) that returns
its losses by name.

Prints per system: each side's total loss at the first and last iteration, whether every loss
was finite, Jittor's ``lived_vars`` after the second and the last iteration with
``shims.GraphWatch``'s verdict (the graph must not grow step after step), and seconds per
iteration on each side (the first iteration, which compiles Jittor's kernels, excluded). The
two sides start from different random weights: the losses show both train, not that they agree
(``examples/upstream/*.toml`` and ``jtport parity`` prove agreement). Exit 1 when a Jittor run
fails, a loss is not finite, or its graph grows.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRIVERS = ROOT / "examples" / "upstream"
SYSTEMS = {  # clone folder -> driver module
    "stylegan2-ada-pytorch": "train_stylegan2_ada",
    "MCCNet": "train_mccnet",
    "HiSD": "train_hisd",
    "stargan-v2": "train_stargan_v2",
    "NeuS": "train_neus",
}

# Run in the child (torch or Jittor): no jtport import before the driver's own ``import shims``.
_CHILD = """
import json, math, sys, time
sys.path[:0] = {paths!r}
import {module} as driver
step = driver.build(0)
jittor = "jittor" in sys.modules
watch = None
if jittor:
    import shims
    watch = shims.GraphWatch(warmup=1, patience=max(2, {iters} - 2), raise_error=False).__enter__()
for it in range({iters}):
    t0 = time.perf_counter()
    losses = step()
    values = {{k: float(v.item() if hasattr(v, "item") else v) for k, v in losses.items()}}
    row = {{"iter": it, "losses": values, "seconds": time.perf_counter() - t0}}
    if watch is not None:
        import jittor as jt
        jt.sync_all()
        jt.gc()
        row["lived_vars"] = watch.step()["lived_vars"]
        row["growing"] = watch.growing
    print("ROW " + json.dumps(row), flush=True)
"""


def run_child(python: str, module: str, paths: list, iters: int, timeout: float, cwd: Path) -> dict:
    """One side's run: its rows (one per iteration), or the error that stopped it."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "PYTHONPATH": str(ROOT)}
    code = _CHILD.format(paths=[str(p) for p in paths], module=module, iters=iters)
    try:
        proc = subprocess.run([python, "-c", code], cwd=cwd, env=env, text=True, capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rows": [], "error": f"timed out after {timeout:.0f} s"}
    rows = [json.loads(ln[4:]) for ln in proc.stdout.splitlines() if ln.startswith("ROW ")]
    error = None
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"]
        error = lines[-1]
    return {"rows": rows, "error": error, "stderr": proc.stderr[-4000:]}


def summarise(side: dict) -> dict:
    """Total loss at the first and last iteration, finiteness, seconds per warm iteration."""
    rows = side["rows"]
    totals = [sum(r["losses"].values()) for r in rows]
    finite = bool(rows) and all(math.isfinite(v) for r in rows for v in r["losses"].values())
    warm = [r["seconds"] for r in rows[1:]] or [r["seconds"] for r in rows]
    out = {"first": totals[0] if totals else None, "last": totals[-1] if totals else None,
           "finite": finite, "s_per_iter": sum(warm) / len(warm) if warm else None}
    if rows and "lived_vars" in rows[-1]:
        out["lived"] = (rows[min(1, len(rows) - 1)]["lived_vars"], rows[-1]["lived_vars"])
        out["growing"] = rows[-1]["growing"]
    return out


def measure(clone: Path, module: str, iters: int, torch_python: str, timeout: float, tmp: Path) -> dict:
    """Convert ``clone`` and its driver, run both sides, summarise."""
    from porter import convert_path  # the torch child must not need libcst
    converted = tmp / f"{clone.name}_jittor"
    convert_path(clone, converted, jobs=1)
    drivers = tmp / "drivers"
    convert_path(DRIVERS / f"{module}.py", drivers / f"{module}.py", jobs=1)
    t0 = time.time()
    jittor = run_child(sys.executable, module, [converted, drivers], iters, timeout, converted)
    result = {"jittor": jittor, "jittor_wall": time.time() - t0}
    if torch_python:
        result["torch"] = run_child(torch_python, module, [clone, DRIVERS], iters, timeout, clone)
    return result


def _fmt(v, spec=".4g") -> str:
    return "-" if v is None else format(v, spec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clones", type=Path)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--iters", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--torch-python", default=os.environ.get("JTPORT_TORCH_PYTHON")
                    or (str(ROOT / ".venv-torch" / "bin" / "python")
                        if (ROOT / ".venv-torch" / "bin" / "python").exists() else ""),
                    help="interpreter with torch for the original run (default: .venv-torch); '' skips it")
    args = ap.parse_args()
    names = [n for n in SYSTEMS if (args.clones / n).is_dir() and (args.only is None or n in args.only)]
    if not names:
        print(f"no clone of {', '.join(SYSTEMS)} in {args.clones}", file=sys.stderr)
        return 2
    print(f"{'system':<24} {'torch loss first->last':>24} {'jittor loss first->last':>25} {'finite':>7} "
          f"{'lived_vars it2->last':>21} {'graph':>8} {'s/iter torch':>13} {'s/iter jittor':>14}")
    failed = []
    with tempfile.TemporaryDirectory(prefix="jtport-train-") as t:
        for name in names:
            r = measure(args.clones / name, SYSTEMS[name], args.iters, args.torch_python, args.timeout, Path(t))
            j = summarise(r["jittor"])
            tr = summarise(r["torch"]) if "torch" in r else {}
            lived = j.get("lived")
            graph = "-" if lived is None else ("GROWS" if j.get("growing") else "flat")
            print(f"{name:<24} {_fmt(tr.get('first')):>11} -> {_fmt(tr.get('last')):<10} "
                  f"{_fmt(j['first']):>12} -> {_fmt(j['last']):<10} {str(j['finite']):>7} "
                  f"{(f'{lived[0]} -> {lived[1]}' if lived else '-'):>21} {graph:>8} "
                  f"{_fmt(tr.get('s_per_iter'), '.3f'):>13} {_fmt(j['s_per_iter'], '.3f'):>14}", flush=True)
            for side in ("jittor", "torch"):
                if side in r and r[side]["error"]:
                    print(f"  {name} ({side}): {r[side]['error']}")
            if r["jittor"]["error"] or not j["finite"] or j.get("growing"):
                failed.append(name)
                if r["jittor"]["error"]:
                    print(r["jittor"].get("stderr", ""), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
