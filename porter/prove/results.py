"""Parity result rows: written by every parity suite, summarised by ``python -m parity_tests.run``.

One JSON file per suite, ``build/parity/results/<suite>.json``: a list of rows
``{suite, case, status, max_abs_err, max_rel_err, first_diverging, detail, test}``.
``status`` is ``passed`` or ``failed``; the parity ``conftest.py`` turns the rows of a test
that pytest reports as an expected failure into ``xfail`` (a known, documented gap).
A row is keyed by ``case``: re-running a case replaces its row.
"""
from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional

from porter.prove.workspace import ROOT

RESULTS = ROOT / "build" / "parity" / "results"
STATUSES = ("passed", "failed", "xfail")


@dataclass
class Row:
    """One compared case."""

    suite: str
    case: str
    status: str
    max_abs_err: Optional[float] = None
    max_rel_err: Optional[float] = None
    first_diverging: Optional[str] = None
    detail: str = ""
    test: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Row.status must be one of {STATUSES}, got {self.status!r}")

    @property
    def ok(self) -> bool:
        """True for a passed row."""
        return self.status == "passed"


def current_test() -> str:
    """The pytest node id of the running test ('' outside pytest)."""
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]


def _path(suite: str, results: Path) -> Path:
    if not suite or "/" in suite or suite.startswith("."):
        raise ValueError(f"bad suite name {suite!r}")
    return results / f"{suite}.json"


class _Locked:
    """An exclusive lock on a suite's file (several pytest processes may write at once)."""

    def __init__(self, path: Path):
        self.lock = path.with_suffix(".lock")

    def __enter__(self):
        self.lock.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.lock, "w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def _read(path: Path) -> List[dict]:
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected a list of rows")
    return rows


def record(row: Row, results: Path = RESULTS) -> Row:
    """Write (or replace) ``row`` in its suite's file; returns it."""
    if not row.test:
        row.test = current_test()
    path = _path(row.suite, results)
    with _Locked(path):
        rows = [r for r in _read(path) if r.get("case") != row.case]
        rows.append(asdict(row))
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(rows, indent=1, default=float))
        tmp.replace(path)
    return row


def mark_test(test: str, status: str, reason: str = "", results: Path = RESULTS) -> int:
    """Set ``status`` on every row written by pytest node ``test``; returns how many changed."""
    changed = 0
    if not results.exists():
        return 0
    for path in sorted(results.glob("*.json")):
        with _Locked(path):
            rows = _read(path)
            hit = False
            for r in rows:
                if r.get("test") == test and r.get("status") != status:
                    r["status"] = status
                    if reason:
                        r["detail"] = f"{reason}; {r.get('detail', '')}".rstrip("; ")
                    hit = True
                    changed += 1
            if hit:
                path.write_text(json.dumps(rows, indent=1))
    return changed


def load_all(results: Path = RESULTS) -> Dict[str, List[Row]]:
    """Every suite's rows, by suite name."""
    out: Dict[str, List[Row]] = {}
    if results.exists():
        for path in sorted(results.glob("*.json")):
            out[path.stem] = [Row(**r) for r in _read(path)]
    return out
