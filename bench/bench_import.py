"""How long ``import shims`` takes: the runtime every converted program imports first.

Each run is a fresh interpreter (Jittor's compile cache warm: run it once before timing) that
imports ``shims`` under ``python -X importtime``; reported are the median over ``--runs`` of the
whole import, of Jittor's share (``import jittor``, which ``shims`` cannot avoid) and of what
``shims`` adds on top, and the modules ``shims`` imports that are not Jittor's or the standard
library's.

    python bench/bench_import.py [--runs 9] [--root CHECKOUT]

``--root`` measures another checkout (an older commit in a worktree) with this interpreter.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)$")


def one_run(root: Path) -> Dict[str, object]:
    """Import ``shims`` once in a fresh process; cumulative microseconds per top-level module."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up run writes the bytecode cache, as installs have
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import shims"], cwd=root, env=env,
                          capture_output=True, text=True, check=True)
    cumulative: Dict[str, int] = {}
    for line in proc.stderr.splitlines():
        m = LINE.match(line)
        if m:
            cumulative[m.group(4)] = int(m.group(2))
    return {"total": cumulative["shims"], "jittor": cumulative.get("jittor", 0),
            "modules": sorted(m for m in cumulative if m.startswith("shims"))}


def main(argv: List[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose shims is imported")
    args = ap.parse_args(argv)
    one_run(args.root)  # warm the OS file cache and write the bytecode cache
    runs = [one_run(args.root) for _ in range(args.runs)]
    total = statistics.median(r["total"] for r in runs) / 1e3
    jittor = statistics.median(r["jittor"] for r in runs) / 1e3
    own = statistics.median(r["total"] - r["jittor"] for r in runs) / 1e3
    doctor = [m for m in runs[0]["modules"] if "env_checks" in m or "doctor" in m]
    print(f"import shims ({args.root}, median of {args.runs} fresh processes): {total:.0f} ms, "
          f"of which import jittor {jittor:.0f} ms, shims itself {own:.0f} ms; "
          f"{len(runs[0]['modules'])} shims modules, doctor modules among them: {doctor or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
