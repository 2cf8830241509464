"""The parity summary table: one line per suite, then the failed cases, from the result rows
every parity suite writes (``build/parity/results/*.json``, :mod:`porter.prove.results`)."""
from __future__ import annotations

import math
from typing import Dict, List, Optional

from porter.prove.results import Row


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
