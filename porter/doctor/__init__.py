"""``jtport doctor``: diagnose the environment Jittor runs in, one line per check.

The checks live in :mod:`porter.doctor.checks`; the settings they explain are
:mod:`porter.machine.env`'s (``required_settings``), a standard-library leaf:
``import shims`` would import Jittor, and the doctor probes Jittor only in subprocesses (with a
timeout) of the interpreter being checked.

Usage::

    jtport doctor [--json] [--runtime] [--project DIR] [--python EXE] [--timeout S]
    python -m porter.doctor --markdown      # docs/troubleshooting.md's generated block

Exit status: 0 when every finding is ok or a warning, 1 when a problem would stop Jittor,
2 for bad arguments.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import List, Optional, Sequence

from . import checks

__all__ = ["main", "build_parser", "format_text", "exit_code", "checks"]


def build_parser() -> argparse.ArgumentParser:
    """The ``jtport doctor`` argument parser."""
    p = argparse.ArgumentParser(
        prog="jtport doctor",
        description="Check the environment Jittor runs in: one line per check (ok / warning / problem) "
                    "with the fix. Exits 1 when a problem would stop Jittor.")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--runtime", action="store_true",
                   help="also report memory: device memory, GPU memory holders, Jittor's counters explained")
    p.add_argument("--markdown", action="store_true",
                   help="print docs/troubleshooting.md's generated block (from the checks) and exit")
    p.add_argument("--project", metavar="DIR", help="your code's folder, scanned for dead dataset URLs")
    p.add_argument("--python", metavar="EXE", default=sys.executable,
                   help="the Python whose Jittor is checked (default: the one running jtport)")
    p.add_argument("--timeout", metavar="S", type=float, default=60.0,
                   help="seconds allowed for `import jittor` in the probe (default 60)")
    return p


def format_text(findings: Sequence, settings: Sequence, python: str) -> str:
    """Human-readable report: one line per check, then the settings and a summary."""
    width = max((len(f.check) for f in findings), default=0)
    lines = [f"jtport doctor: checking {python}"]
    for f in findings:
        line = f"{f.status:<8} {f.check:<{width}}  {f.message}"
        if f.fix:
            line += f" -> fix: {f.fix}"
        lines.append(line)
    if settings:
        lines.append("settings jtport applies before importing Jittor: "
                     + " ".join(f"{s.name}={s.value}" for s in settings))
    for f in findings:
        explanation = f.details.get("explanation") if f.details else None
        if explanation:
            lines.append(textwrap.indent(explanation, "  "))
    counts = {s: sum(f.status == s for f in findings) for s in ("ok", "warning", "problem")}
    lines.append(f"{counts['ok']} ok, {counts['warning']} warning(s), {counts['problem']} problem(s)")
    return "\n".join(lines)


def exit_code(findings: Sequence) -> int:
    """1 when any finding is a problem (it would stop Jittor), else 0."""
    return 1 if any(f.status == "problem" for f in findings) else 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``jtport doctor``; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.markdown:
        sys.stdout.write(checks.troubleshooting_markdown())
        return 0
    if args.project and not os.path.isdir(args.project):
        print(f"jtport doctor: --project {args.project}: not a folder", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print(f"jtport doctor: --timeout {args.timeout:g}: must be positive", file=sys.stderr)
        return 2
    ctx = checks.CheckContext(environ=dict(os.environ), python=args.python,
                           project=args.project, timeout=args.timeout)
    findings = checks.run_checks(ctx, runtime=args.runtime)
    settings = ctx.settings()
    code = exit_code(findings)
    if args.json:
        print(json.dumps({"exit_code": code, "status": checks.worst_status(findings),
                          "python": args.python,
                          "settings": [{"name": s.name, "value": s.value, "reason": s.reason} for s in settings],
                          "findings": [f.to_dict() for f in findings]}, indent=2))
    else:
        print(format_text(findings, settings, args.python))
    return code
