"""Conversion speed in lines/second next to bare libcst parse+print, measured in one run.

Headline (issue 15's target, >= 0.5): ``jtport convert`` (the CLI's engine, one process,
reading and writing files) on a torch-heavy tree -- every file of ``models_ref/``,
``examples/``, ``parity_tests/torch_side/`` and ``tests/golden/`` that imports torch, copied
until the tree holds ``--tree-lines`` lines (default 80,000) -- against bare libcst
parse+print of the same sources in memory, as a ratio of speeds (the median of rounds that
run each side once, so load drifting on a shared machine hits both sides alike).

Further corpora:
* ``examples/demo_project`` (a torch project: the whole pipeline runs on every file);
* a large standard-library directory (default ``Lib/idlelib``): as shipped (no file imports
  torch, so jtport parses and stops) and "forced" (``import torch`` prepended to every file, so
  name resolution, every rule, the leftover pass and code generation run on all of it).

Usage: ``python bench/bench_convert.py [--stdlib-dir NAME] [--repeat N] [--jobs 1 2]``.
Prints one row per corpus and mode; medians of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, List, Sequence, Tuple

import libcst as cst

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from porter import convert_source  # noqa: E402
from porter.convert.engine import convert_path  # noqa: E402


def bare(source: str) -> str:
    """libcst alone: parse and print."""
    return cst.parse_module(source).code


def jtport(source: str) -> str:
    """The converter on one source."""
    return convert_source(source).code


def _run_chunk(args):
    fn_name, sources = args
    fn = {"bare": bare, "jtport": jtport}[fn_name]
    for s in sources:
        fn(s)
    return len(sources)


def timed(fn_name: str, sources: Sequence[str], jobs: int, repeat: int) -> float:
    """Median seconds to process all ``sources`` with ``jobs`` processes."""
    times = []
    for _ in range(repeat):
        if jobs == 1:
            fn: Callable[[str], str] = {"bare": bare, "jtport": jtport}[fn_name]
            t = time.perf_counter()
            for s in sources:
                fn(s)
            times.append(time.perf_counter() - t)
        else:
            chunks = [list(sources[i::jobs * 4]) for i in range(jobs * 4)]
            with ProcessPoolExecutor(jobs) as pool:
                list(pool.map(_run_chunk, [(fn_name, sources[:1])] * jobs))  # warm the workers
                t = time.perf_counter()
                list(pool.map(_run_chunk, [(fn_name, c) for c in chunks]))
                times.append(time.perf_counter() - t)
    return statistics.median(times)


def load(paths: Sequence[Path]) -> List[str]:
    """Sources of the files that parse (libcst)."""
    out = []
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8")
            cst.parse_module(text)
        except Exception:
            continue
        out.append(text)
    return out


TORCH_DIRS = ("models_ref", "examples", "parity_tests/torch_side", "tests/golden")


def torch_files() -> List[Path]:
    """This repository's Python files that import torch (the references, demo, torch sides, goldens)."""
    found = []
    for d in TORCH_DIRS:
        for p in sorted((ROOT / d).rglob("*.py")):
            text = p.read_text(encoding="utf-8")
            if any(line.lstrip().startswith(("import torch", "from torch")) for line in text.splitlines()):
                found.append(p)
    return found


def torch_tree(dest: Path, min_lines: int) -> List[str]:
    """Copy the torch files into ``dest/copyN/...`` until ``min_lines``; return the sources."""
    files = [(p.relative_to(ROOT), p.read_text(encoding="utf-8")) for p in torch_files()]
    files = [(rel, text) for rel, text in files if load_one(text)]
    sources, lines, n = [], 0, 0
    while lines < min_lines:
        for rel, text in files:
            target = dest / f"copy{n}" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            sources.append(text)
            lines += text.count("\n")
        n += 1
    return sources


def load_one(text: str) -> bool:
    """True when libcst parses ``text``."""
    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def headline(min_lines: int, repeat: int) -> float:
    """Print and return CLI-convert speed / bare parse+print speed on the torch-heavy tree.

    The two sides alternate, one run each per round, and the ratio is the median of the
    rounds' ratios: on a shared machine the load drifts between rounds, far less within one.
    The ratio of CPU times (this process's, so other processes' load barely shows; waits on
    the disk do not count) is printed beside it."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        sources = torch_tree(tree, min_lines)
        lines = sum(s.count("\n") for s in sources)
        wall: List[Tuple[float, float]] = []
        cpu: List[Tuple[float, float]] = []
        for k in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            for s in sources:
                bare(s)
            t2, c2 = time.perf_counter(), time.process_time()
            convert_path(tree, Path(tmp) / f"out{k}", jobs=1)
            wall.append((t2 - t, time.perf_counter() - t2))
            cpu.append((c2 - c, time.process_time() - c2))
    ratio, spread = _ratio(wall)
    cpu_ratio, cpu_spread = _ratio(cpu)
    tb, tc = (statistics.median(side) for side in zip(*wall))
    print(f"torch-heavy tree ({len(sources)} files, {lines} lines), one core: bare libcst {lines / tb:,.0f} "
          f"lines/s, jtport convert {lines / tc:,.0f} lines/s, ratio {ratio:.2f}{spread} (target >= 0.5); "
          f"CPU time ratio {cpu_ratio:.2f}{cpu_spread}")
    return ratio


def _ratio(rounds: Sequence[Tuple[float, float]]) -> Tuple[float, str]:
    """The median over rounds of bare time / convert time, and the rounds' range as text."""
    ratios = sorted(b / c for b, c in rounds)
    return statistics.median(ratios), f" (rounds {ratios[0]:.2f}-{ratios[-1]:.2f})" if len(ratios) > 1 else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stdlib-dir", default="idlelib")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--tree-lines", type=int, default=80_000)
    ap.add_argument("--headline-only", action="store_true", help="only the torch-heavy tree's ratio")
    args = ap.parse_args(argv)
    headline(args.tree_lines, args.repeat)
    if args.headline_only:
        return 0

    demo = load(sorted((ROOT / "examples" / "demo_project").rglob("*.py"))) * 20
    lib = Path(sysconfig.get_paths()["stdlib"]) / args.stdlib_dir
    stdlib = load(sorted(lib.rglob("*.py")))
    forced = ["import torch\n" + s for s in stdlib]
    corpora = [("demo project x20", demo), (f"stdlib {args.stdlib_dir}", stdlib),
               (f"stdlib {args.stdlib_dir} + 'import torch'", forced)]
    print(f"{'corpus':<40} {'lines':>7} {'jobs':>4} {'bare lines/s':>13} {'jtport lines/s':>15} {'ratio':>6}")
    for name, sources in corpora:
        lines = sum(s.count("\n") for s in sources)
        for jobs in args.jobs:
            tb = timed("bare", sources, jobs, args.repeat)
            tj = timed("jtport", sources, jobs, args.repeat)
            print(f"{name:<40} {lines:>7} {jobs:>4} {lines / tb:>13,.0f} {lines / tj:>15,.0f} {tb / tj:>6.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in args.jobs:
            t = time.perf_counter()
            report = convert_path(lib, Path(tmp) / f"out{jobs}", jobs=jobs)
            dt = time.perf_counter() - t
            lines = sum(s.count("\n") for s in stdlib)
            print(f"jtport convert {args.stdlib_dir} -j {jobs}: {len(report.files)} files in {dt:.2f}s "
                  f"({lines / dt:,.0f} lines/s, I/O included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
