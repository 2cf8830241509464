"""``python -m parity_tests.run`` (what ``make parity`` calls): run the parity suites, then print
one summary table built from every ``build/parity/results/*.json``.

Exit status: non-zero when pytest failed or any result row failed (``xfail`` rows are known,
documented gaps and do not fail the run).
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from porter.parity.results import RESULTS, Row, load_all

ROOT = Path(__file__).resolve().parents[1]


def jittor_env() -> Dict[str, str]:
    """This process's environment plus the Jittor settings of ``shims/env.py`` (loaded on its
    own, so the runner itself never imports Jittor)."""
    spec = importlib.util.spec_from_file_location("_jtport_env", ROOT / "shims" / "env.py")
    env_mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = env_mod  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(env_mod)
    env = dict(os.environ)
    for k, v in env_mod.as_dict(env).items():
        env.setdefault(k, v)
    return env


def _fmt(x: Optional[float]) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.2e}"


def _max(values: List[Optional[float]]) -> Optional[float]:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return max(vals) if vals else None


def summary(suites: Dict[str, List[Row]]) -> str:
    """The summary table: one line per suite, then one line per failed case."""
    head = ("suite", "cases", "passed", "failed", "xfail", "worst abs", "worst rel", "first diverging (failures)")
    lines = []
    for suite, rows in sorted(suites.items()):
        failed = [r for r in rows if r.status == "failed"]
        diverging = sorted({r.first_diverging for r in failed if r.first_diverging})
        judged = [r for r in rows if r.status != "xfail"]  # known gaps do not set the worst error
        lines.append((suite, str(len(rows)), str(sum(r.status == "passed" for r in rows)), str(len(failed)),
                      str(sum(r.status == "xfail" for r in rows)),
                      _fmt(_max([r.max_abs_err for r in judged])), _fmt(_max([r.max_rel_err for r in judged])),
                      ", ".join(diverging)[:60] or "-"))
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)] if lines else [len(h) for h in head]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*line) for line in lines]
    if not lines:
        out.append("(no parity results found in build/parity/results/)")
    failures = [r for rows in suites.values() for r in rows if r.status == "failed"]
    if failures:
        out += ["", "failed cases:"]
        out += [f"  {r.suite}/{r.case}: {r.detail[:300]}" for r in failures]
    return "\n".join(out)


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
