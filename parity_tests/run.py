"""``python -m parity_tests.run`` (what ``make parity`` calls): run the parity suites, then print
one summary table built from every ``build/parity/results/*.json``.

Exit status: non-zero when pytest failed or any result row failed (``xfail`` rows are known,
documented gaps and do not fail the run).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence

from porter.machine import env as jittor_settings
from porter.prove.results import RESULTS, load_all
from porter.prove.summary import summary

ROOT = Path(__file__).resolve().parents[1]


def jittor_env() -> Dict[str, str]:
    """This process's environment plus the Jittor settings of :mod:`porter.machine.env` (a
    standard-library module: the runner itself never imports Jittor)."""
    env = dict(os.environ)
    for k, v in jittor_settings.as_dict(env).items():
        env.setdefault(k, v)
    return env


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``pytest parity_tests -q`` (unless ``--summary-only``) and print the summary."""
    ap = argparse.ArgumentParser(prog="python -m parity_tests.run", description=__doc__)
    ap.add_argument("--summary-only", action="store_true", help="print the table from existing results")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args(argv)
    rc = 0
    if not args.summary_only:
        if RESULTS.exists():
            for old in RESULTS.glob("*.json"):
                old.unlink()
        rc = subprocess.call([sys.executable, "-m", "pytest", "parity_tests", "-q", *args.pytest_args],
                             cwd=ROOT, env=jittor_env())
    suites = load_all()
    print()
    print(summary(suites))
    failed = any(r.status == "failed" for rows in suites.values() for r in rows)
    return 1 if (rc != 0 or failed) else 0


if __name__ == "__main__":
    sys.exit(main())
