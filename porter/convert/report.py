"""What a conversion found: per file and in total, printable as a table, JSON or Markdown."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional

#: Marker codes; a marker reads ``# jtport: JT<code> <api>: <reason>``.
CODES: Dict[str, str] = {
    "JT001": "torch API without a Jittor mapping, or mapped as unsupported",
    "JT002": "argument that changes the meaning and has no Jittor equivalent",
    "JT003": "structure-dependent code (slicing children/Sequential): check against the torch model",
    "JT101": "nn.Module construct needing a manual look",
    "JT102": "training-step form that cannot be converted faithfully",
    "JT103": "autograd form that cannot be converted faithfully",
    "JT104": "device/parallelism construct without a Jittor equivalent",
    "JT105": "checkpoint construct that cannot be converted faithfully",
    "JT106": "data-loading construct that cannot be converted faithfully",
    "JT107": "write into a torch view (detach/view/transpose...): torch changes the viewed tensor, Jittor does not",
    "JT900": "file could not be decoded or parsed; copied unchanged",
    "JT901": "internal converter error on this file; copied unchanged",
}


@dataclass
class Finding:
    """One place the user must look at: an unsupported use or a warning."""

    path: str
    line: int
    col: int
    api: str
    code: str
    reason: str

    def where(self) -> str:
        """``file:line:col``."""
        return f"{self.path}:{self.line}:{self.col}"


@dataclass
class FileReport:
    """The outcome of converting one file."""

    path: str
    found: int = 0
    converted: int = 0
    changed: bool = False
    unsupported: List[Finding] = field(default_factory=list)
    warnings: List[Finding] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    run_notes: List[str] = field(default_factory=list)
    error: Optional[Finding] = None

    @property
    def rate(self) -> float:
        """Converted torch uses / all torch uses (1.0 when there are none)."""
        return self.converted / self.found if self.found else 1.0


@dataclass
class Report:
    """All files of one run."""

    files: List[FileReport] = field(default_factory=list)

    @property
    def found(self) -> int:
        """Torch API uses found in all files."""
        return sum(f.found for f in self.files)

    @property
    def converted(self) -> int:
        """Torch API uses converted in all files."""
        return sum(f.converted for f in self.files)

    @property
    def unsupported(self) -> List[Finding]:
        """Every unsupported use, in file order."""
        return [u for f in self.files for u in f.unsupported]

    @property
    def errors(self) -> List[Finding]:
        """Files that could not be converted (parse/decode/internal errors)."""
        return [f.error for f in self.files if f.error is not None]

    @property
    def rate(self) -> float:
        """Overall conversion rate."""
        return self.converted / self.found if self.found else 1.0

    def how_to_run(self) -> List[tuple]:
        """``(note, [file, ...])``: what running the converted code needs, and which files."""
        files: Dict[str, List[str]] = {}
        for f in self.files:
            for n in f.run_notes:
                files.setdefault(n, []).append(f.path)
        return list(files.items())

    def unsupported_by_api(self) -> List[tuple]:
        """``(api, count, [file:line, ...])`` sorted by frequency, most frequent first."""
        count = Counter(u.api for u in self.unsupported)
        places: Dict[str, List[str]] = {}
        for u in self.unsupported:
            places.setdefault(u.api, []).append(f"{u.path}:{u.line}")
        return [(api, n, places[api]) for api, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))]

    # -- renderings ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready dict: totals, per-file rows, unsupported APIs by frequency."""
        return {
            "totals": {"files": len(self.files), "found": self.found, "converted": self.converted,
                       "unsupported": len(self.unsupported), "errors": len(self.errors),
                       "rate": round(self.rate, 4)},
            "files": [asdict(f) | {"rate": round(f.rate, 4)} for f in self.files],
            "unsupported_by_api": [{"api": a, "count": n, "places": p}
                                   for a, n, p in self.unsupported_by_api()],
        }

    def to_json(self) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        """The report as a Markdown document."""
        lines = ["# jtport conversion report", "",
                 f"**{self.converted}/{self.found}** torch API uses converted "
                 f"({self.rate:.1%}) in {len(self.files)} files; "
                 f"{len(self.unsupported)} unsupported, {len(self.errors)} files with errors.", "",
                 "| file | torch uses | converted | unsupported | rate |", "|---|---:|---:|---:|---:|"]
        for f in self.files:
            if f.found or f.error:
                lines.append(f"| {f.path} | {f.found} | {f.converted} | {len(f.unsupported)} | {f.rate:.0%} |")
        if self.unsupported:
            lines += ["", "## Unsupported, by frequency", "", "| API | count | where | reason |", "|---|---:|---|---|"]
            reasons = {u.api: u.reason for u in self.unsupported}
            for api, n, places in self.unsupported_by_api():
                shown = ", ".join(places[:5]) + (" ..." if len(places) > 5 else "")
                lines.append(f"| `{api}` | {n} | {shown} | {reasons[api]} |")
        if self.how_to_run():
            lines += ["", "## Running the converted code", ""]
            lines += [f"- {n} ({', '.join(fs)})" for n, fs in self.how_to_run()]
        warnings = [w for f in self.files for w in f.warnings]
        if warnings:
            lines += ["", "## Warnings", ""]
            lines += [f"- {w.where()} {w.code} `{w.api}`: {w.reason}" for w in warnings]
        if self.errors:
            lines += ["", "## Files copied unchanged", ""]
            lines += [f"- {e.where()} {e.code}: {e.reason}" for e in self.errors]
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    @property
    def notes(self) -> List[str]:
        """What the run skipped or cleaned up (symlinks not followed, stale temporary files)."""
        return [n for f in self.files for n in f.notes]

    def format_table(self, max_rows: int = 15) -> str:
        """A short plain-text summary for the terminal."""
        out = [f"{'file':<48} {'uses':>5} {'conv':>5} {'unsup':>5} {'rate':>6}"]
        for f in self.files:
            if f.found or f.error:
                name = f.path if len(f.path) <= 48 else "..." + f.path[-45:]
                out.append(f"{name:<48} {f.found:>5} {f.converted:>5} {len(f.unsupported):>5} {f.rate:>6.0%}")
        out.append(f"{'TOTAL':<48} {self.found:>5} {self.converted:>5} {len(self.unsupported):>5} {self.rate:>6.0%}")
        by_api = self.unsupported_by_api()
        if by_api:
            out.append("")
            out.append("unsupported, most frequent first:")
            for api, n, places in by_api[:max_rows]:
                out.append(f"  {n:>4}  {api}  ({', '.join(places[:3])}{' ...' if len(places) > 3 else ''})")
            if len(by_api) > max_rows:
                out.append(f"  ... {len(by_api) - max_rows} more APIs (see --report)")
        for note, files in self.how_to_run():
            out.append(f"to run: {note} ({', '.join(files[:3])}{' ...' if len(files) > 3 else ''})")
        for e in self.errors:
            out.append(f"error: {e.where()}: {e.code} {e.reason}")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)
