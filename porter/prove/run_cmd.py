"""``jtport parity --run ORIGINAL.py CONVERTED.py [--steps N] [--html FILE] -- ARGS``: prove a
whole training script.

Runs the original under the torch interpreter (``--torch-python``, ``$JTPORT_TORCH_PYTHON`` or
the workspace's ``.venv-torch``) with :mod:`.run_trace_torch`, then the same script from weights
one float32 rounding away (``--spread-runs``, torch's own sensitivity), then the conversion under
Jittor with :mod:`.run_trace_jittor` from torch's weights and random stream; each from its own
folder, with ``ARGS``, stopped after ``N`` steps.  :mod:`.run_compare` judges the traces; the
table goes to the terminal, ``--html`` writes :mod:`.run_report_html`'s page.

Exit codes: 0 everything matched; 1 a difference (named); 2 usage error or a side failed (its
traceback is printed).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import workspace
from .run_compare import Trace, judge, table
from .run_report_html import write
from .run_trace_common import PROGRESS, SAMPLE

EPILOG = """\
exit codes:
  0  every loss, first-step module output and gradient, and the parameters match
  1  a difference: the first differing loss, module (forward) or gradient (backward) is named
  2  usage error, or one side's script failed (its traceback is printed)

example (docs/parity.md, "Proving a whole training script"):
  jtport convert src/ -o src_jittor
  jtport parity --run src/train.py src_jittor/train.py --steps 5 --html report.html -- --epochs 1
"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="jtport parity --run", epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description="Run a torch training script and its conversion side by side, "
                                             "from the same weights and random stream, and compare them step by step.")
    ap.add_argument("original", help="the torch script (run from its own folder)")
    ap.add_argument("converted", help="its conversion (run from its own folder)")
    ap.add_argument("--steps", type=int, default=5, help="optimizer steps to run and compare (default 5)")
    ap.add_argument("--html", help="also write a self-contained HTML report here")
    ap.add_argument("--out", help="where the traces go (default: build/parity/run/<script name> in the current folder)")
    ap.add_argument("--torch-python", help="interpreter with torch (default: $JTPORT_TORCH_PYTHON, else .venv-torch)")
    ap.add_argument("--spread-runs", type=int, default=3,
                    help="torch runs from weights one rounding away, measuring torch's own float32 error (default 3)")
    ap.add_argument("--project-root", metavar="REL",
                    help="a folder, relative to each script's own folder (e.g. ..), that the script's imports start "
                         "from: the original's on the torch side's path, the conversion's on the port's")
    ap.add_argument("--sample", type=int, default=SAMPLE, metavar="N",
                    help="keep at most about N elements of each first-step output and gradient: a larger one is "
                         f"compared on an evenly strided sample (default {SAMPLE}; 0 keeps everything)")
    return ap


def with_project_root(env: dict, script: Path, rel: Optional[str]) -> dict:
    """``env`` with ``script``'s project root (``rel`` from its folder) first on ``PYTHONPATH``: a
    script that imports its own package (``from pygcn.utils import ...``) finds its own side's copy."""
    if not rel:
        return env
    root = str((script.parent / rel).resolve())
    return dict(env, PYTHONPATH=os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])))


def split_argv(argv: Sequence[str]) -> Tuple[List[str], List[str]]:
    """jtport's own arguments and the script's (after ``--``)."""
    argv = [a for a in argv if a != "--run"]
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _side(name: str, cmd: Sequence[str], env: dict, log: Path) -> Tuple[int, str]:
    """Run one side, printing its progress lines; its exit status and its stderr (the script's
    stdout goes to ``log``)."""
    with open(log, "w") as out:
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.PIPE, text=True, env=env)
        err = []
        for line in proc.stderr:
            if line.startswith(PROGRESS):
                print(f"  {line[len(PROGRESS):].strip()}", flush=True)
            else:
                err.append(line)
        return proc.wait(), "".join(err)


def _failed(name: str, folder: Path, stderr: str) -> int:
    """Report a side's failure with its traceback; exit status 2."""
    trace = folder / "trace.json"
    text = stderr
    if trace.exists():
        text = json.loads(trace.read_text()).get("error") or stderr
    print(f"jtport parity: error: the {name} side failed:\n{text.rstrip()[-6000:]}", file=sys.stderr)
    return 2


def main(argv: Sequence[str]) -> int:
    """Entry point of ``jtport parity --run``; the exit code."""
    own, script_args = split_argv(argv)
    a = _parser().parse_args(own)
    original, converted = Path(a.original).resolve(), Path(a.converted).resolve()
    for p in (original, converted):
        if not p.is_file():
            print(f"jtport parity: error: no such script: {p}", file=sys.stderr)
            return 2
    if a.steps < 1:
        print("jtport parity: error: --steps must be at least 1", file=sys.stderr)
        return 2
    out = Path(a.out).resolve() if a.out else Path.cwd() / "build" / "parity" / "run" / original.stem
    out.mkdir(parents=True, exist_ok=True)
    torch_python = a.torch_python or workspace.default_torch_python()
    steps = ["--steps", str(a.steps), "--sample", str(a.sample)]
    if a.project_root and not (original.parent / a.project_root).is_dir():
        print(f"jtport parity: error: --project-root {a.project_root}: no such folder beside {original}",
              file=sys.stderr)
        return 2
    with workspace.torch_pythonpath() as pythonpath:
        env = with_project_root(workspace.torch_env(pythonpath), original, a.project_root)
        print(f"torch side: {original} ({a.steps} steps)", flush=True)
        try:
            rc, err = _side("torch", [torch_python, "-m", "porter.prove.torch_side.run_trace_torch",
                                      "--out", str(out / "torch"), *steps, str(original), "--", *script_args],
                            env, out / "torch.log")
        except OSError as e:
            print(f"jtport parity: error: cannot run the torch interpreter {torch_python}: {e} (pass "
                  "--torch-python, or set JTPORT_TORCH_PYTHON)", file=sys.stderr)
            return 2
        if rc != 0:
            return _failed("torch", out / "torch", err)
        spreads = []
        for seed in range(1, max(0, a.spread_runs) + 1):
            print(f"torch side, spread run {seed} (weights one float32 rounding away)", flush=True)
            folder = out / f"spread{seed}"
            rc, err = _side("torch", [torch_python, "-m", "porter.prove.torch_side.run_trace_torch",
                                      "--out", str(folder), *steps, "--perturb", str(seed), "--start-state",
                                      str(out / "torch" / "start_state.npy"), str(original), "--", *script_args],
                            env, out / f"spread{seed}.log")
            if rc != 0:
                return _failed(f"torch (spread run {seed})", folder, err)
            spreads.append(folder)
    print(f"jittor side: {converted}", flush=True)
    env = dict(os.environ)
    root = str(workspace.PACKAGE.parent)
    env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env = with_project_root(env, converted, a.project_root)
    rc, err = _side("jittor", [sys.executable, "-m", "porter.prove.run_trace_jittor", "--out", str(out / "port"),
                               *steps, "--reference", str(out / "torch"), str(converted), "--", *script_args],
                    env, out / "port.log")
    if rc != 0:
        return _failed("jittor", out / "port", err)
    return report(out, spreads, a.html)


def report(out: Path, spreads: Sequence[Path], html: Optional[str]) -> int:
    """Judge the traces in ``out``, print the table, write the page; the exit code."""
    verdict = judge(Trace.load(out / "torch"), Trace.load(out / "port"), [Trace.load(s) for s in spreads])
    print(table(verdict))
    if html:
        write(Path(html), verdict)
        print(f"report: {Path(html).resolve()}")
    return 0 if verdict.ok else 1
