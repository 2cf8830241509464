"""Generate ``docs/API_COVERAGE.md`` and ``docs/api_coverage.json`` from the mapping table and
the last API-parity run (``docs/api_parity_results.json``, written by
``parity_tests/test_api_parity.py`` when all cases ran).

``python -m porter.prove.coverage_doc`` writes both files; ``--check`` exits 1 when either is out of
date with the table or the results (what ``tests/test_coverage_doc.py`` asserts).  Neither
step imports Jittor or torch.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ..mapping import STATUSES, MappingTable, load_table

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESULTS = DOCS / "api_parity_results.json"
MD = DOCS / "API_COVERAGE.md"
JSON = DOCS / "api_coverage.json"

#: harness notes -> the sentence the user reads in the row's reason
NOTE_TEXT = {
    "0-d as (1,)": "Jittor has no 0-d Vars: torch's 0-d result is shape (1,) here",
    "(Jittor 64->32 policy)": "int64/float64 results come back int32/float32 (Jittor's auto_convert_64_to_32)",
    "torch Python scalar, Jittor 1-element Var": "returns a 1-element Var where torch returns a Python number",
}


def load_results(path: Path = RESULTS) -> Dict[str, dict]:
    """Per-row outcomes of the last full harness run ({} when there is none)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    rows = data.get("rows")
    if not isinstance(rows, dict):
        raise ValueError(f"{path}: expected an object with a 'rows' mapping")
    return rows


def _reason(entry, outcome: Optional[dict]) -> str:
    parts = [entry.reason] if entry.reason else []
    for note in (outcome or {}).get("notes", []):
        for marker, text in NOTE_TEXT.items():
            if marker in note and text not in parts:
                parts.append(text)
    if outcome and outcome.get("failed_cases"):
        parts.append("failing cases: " + ", ".join(c.split(":", 1)[1] for c in outcome["failed_cases"]))
    return "; ".join(parts)


def coverage_rows(table: MappingTable, results: Dict[str, dict]) -> List[dict]:
    """One object per table row: api, status, target, forward, gradient, reason."""
    rows = []
    for e in table:
        out = results.get(e.api)
        fwd = out["forward"] if out else "n/a"
        grad = out["gradient"] if out and e.differentiable else "n/a"
        rows.append({"api": e.api, "status": e.status, "target": e.target or "", "forward": fwd,
                     "gradient": grad, "reason": _reason(e, out)})
    return rows


def counts(rows: List[dict]) -> Dict[str, object]:
    """The headline figures: rows by status, forward/gradient outcomes."""
    return {
        "rows": len(rows),
        "by_status": {s: sum(r["status"] == s for r in rows) for s in STATUSES},
        "forward": dict(Counter(r["forward"] for r in rows)),
        "gradient": dict(Counter(r["gradient"] for r in rows)),
        "direct_failing": sum(r["status"] == "direct" and "fail" in (r["forward"], r["gradient"]) for r in rows),
    }


def namespace_coverage(table: MappingTable) -> List[dict]:
    """Per namespace of torch's public surface (``torch_members.json``): how many of its names
    have a converted row (direct/shim/rewritten), an unsupported row, or no row at all."""
    out = []
    for ns, names in sorted(table.surface.items()):
        status = [(table.get(f"{ns}.{n}").status if table.get(f"{ns}.{n}") else None) for n in names]
        out.append({"namespace": ns, "names": len(names),
                    "converted": sum(s in ("direct", "shim", "rewritten") for s in status),
                    "unsupported": status.count("unsupported"),
                    "no_row": [n for n, s in zip(names, status) if s is None]})
    return out


def render_namespaces(spaces: List[dict]) -> List[str]:
    """The per-namespace coverage table (names without a row listed, up to 40 per namespace)."""
    lines = ["## Coverage of torch's public surface, by namespace", "",
             "Names from torch itself (`porter/mapping/generate_members.py`, run in `.venv-torch`). A name with",
             "no row is marked by the converter (JT001) where code uses it.", "",
             "| namespace | public names | converted | unsupported (with reason) | no row | names without a row |",
             "|---|---|---|---|---|---|"]
    for sp in spaces:
        missing = sp["no_row"]
        more = f" (+{len(missing) - 40} more)" if len(missing) > 40 else ""
        shown = ", ".join(f"`{n}`" for n in missing[:40]) + more
        lines.append(f"| `{sp['namespace']}` | {sp['names']} | {sp['converted']} | {sp['unsupported']} | "
                     f"{len(missing)} | {shown} |")
    return lines + [""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_md(rows: List[dict], n_cases: int, spaces: Optional[List[dict]] = None) -> str:
    """The Markdown page."""
    c = counts(rows)
    bs = c["by_status"]
    lines = [
        "# API coverage",
        "",
        "Generated by `python -m porter.prove.coverage_doc` (`make docs`) from `porter/mapping/*.toml` and the",
        "last per-API parity run (`docs/api_parity_results.json`, written by",
        "`parity_tests/test_api_parity.py`). Do not edit by hand.",
        "",
        "Forward/gradient: `pass` when every parity case of the row matched torch (values, shapes,",
        "dtypes; gradients of a fixed random projection of the output w.r.t. every float input),",
        "`fail` when one did not, `n/a` when the row has no case (or is not differentiable).",
        "",
        f"- rows: **{c['rows']}** (direct {bs['direct']}, shim {bs['shim']}, rewritten {bs['rewritten']}, "
        f"unsupported {bs['unsupported']})",
        f"- parity cases: **{n_cases}**",
        f"- forward: {c['forward'].get('pass', 0)} pass, {c['forward'].get('fail', 0)} fail, "
        f"{c['forward'].get('n/a', 0)} n/a",
        f"- gradient: {c['gradient'].get('pass', 0)} pass, {c['gradient'].get('fail', 0)} fail, "
        f"{c['gradient'].get('n/a', 0)} n/a",
        f"- direct rows failing: {c['direct_failing']}",
        "",
        *render_namespaces(spaces or []),
        "| API | status | Jittor target | forward | gradient | reason |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = f"`{r['target']}`" if r["target"] else ""
        lines.append(f"| `{r['api']}` | {r['status']} | {target} | {r['forward']} | {r['gradient']} | "
                     f"{_cell(r['reason'])} |")
    return "\n".join(lines) + "\n"


def render_json(rows: List[dict]) -> str:
    """The JSON list (same rows)."""
    return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"


def generate(table: Optional[MappingTable] = None, results_path: Path = RESULTS) -> Dict[Path, str]:
    """The content of both generated files, by path."""
    table = table or load_table()
    results = load_results(results_path)
    n_cases = sum(o.get("cases", 0) for o in results.values())
    rows = coverage_rows(table, results)
    return {MD: render_md(rows, n_cases, namespace_coverage(table)), JSON: render_json(rows)}


def stale(files: Dict[Path, str]) -> List[Path]:
    """The generated files whose committed content differs."""
    return [p for p, text in files.items() if not p.exists() or p.read_text() != text]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Write the files, or with ``--check`` report stale ones (exit 1)."""
    ap = argparse.ArgumentParser(prog="python -m porter.prove.coverage_doc", description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed files are out of date")
    args = ap.parse_args(argv)
    files = generate()
    if args.check:
        bad = stale(files)
        for p in bad:
            print(f"{p.relative_to(ROOT)} is out of date: run `make docs`", file=sys.stderr)
        return 1 if bad else 0
    DOCS.mkdir(exist_ok=True)
    for p, text in files.items():
        p.write_text(text)
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
