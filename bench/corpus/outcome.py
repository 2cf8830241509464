"""Read one run's log: the last loss it printed, and the first error with its class and location."""
from __future__ import annotations

import math
import re

_NUMBER = r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)"
LOSS_RE = re.compile(r"loss[\w ]*?[=:\s]\s*\(?\s*(?:tensor\(|\[)?\s*" + _NUMBER, re.IGNORECASE)
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')
_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)?)(?::\s?(.*))?$")

CLASSES = ("unmapped API", "wrong rewrite", "shim", "Jittor limitation", "data recipe", "timeout",
           "torch fails")


def last_loss(log: str, pattern: str | None = None) -> float | None:
    """The last number printed after a word ``loss`` (or matched by ``pattern``'s first group)."""
    rx = re.compile(pattern, re.MULTILINE) if pattern else LOSS_RE
    found = None
    for m in rx.finditer(log):
        try:
            found = float(m.group(1))
        except ValueError:
            continue
    return found


def is_finite(value) -> bool | None:
    """Whether a parsed loss is finite; None when no loss was parsed."""
    return None if value is None else math.isfinite(value)


def first_error(log: str, project_dir: str) -> dict | None:
    """The last traceback's exception line and the innermost frame in the project, in shims and in jittor."""
    lines = log.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last)")]
    if not starts:
        return None
    frames, exc = [], None
    for ln in lines[starts[-1] + 1:]:
        fm = _FRAME.match(ln)
        if fm:
            frames.append((fm.group(1), int(fm.group(2))))
            continue
        if ln and not ln.startswith((" ", "\t")):
            em = _EXC.match(ln.strip())
            if em and ("Error" in em.group(1) or "Exception" in em.group(1) or ln.count(":")):
                exc = ln.strip()
                if not ln.startswith("During handling"):
                    break
    where = {"project": None, "shims": None, "jittor": None}
    innermost = "other"
    for path, line in frames:
        if project_dir and path.startswith(project_dir):
            where["project"] = f"{path[len(project_dir):].lstrip('/')}:{line}"
            innermost = "project"
        elif "/shims/" in path:
            where["shims"] = f"shims/{path.split('/shims/', 1)[1]}:{line}"
            innermost = "shims"
        elif "/jittor/" in path:
            where["jittor"] = f"jittor/{path.split('/jittor/', 1)[-1]}:{line}"
            innermost = "jittor"
        else:
            innermost = "other"
    return {"exception": (exc or lines[-1].strip())[:400], "where": where, "innermost": innermost}


def classify(err: dict | None, torch_ok: bool, log: str = "") -> str | None:
    """A first guess at a converted run's failure class (the findings file records the judged one).

    "torch fails": the original does not run here either (CUDA-only, removed torch APIs, a
    recipe gap); such a project is left out of the share.
    """
    if not torch_ok:
        return "torch fails"
    if err is None:
        return "timeout" if "TIMEOUT" in log else None
    exc, inner = err["exception"], err["innermost"]
    if "UnportedError" in exc or "jtport" in exc or "torch" in exc.split(":", 1)[0]:
        return "unmapped API"
    if "No module named 'torch" in exc:
        return "unmapped API"
    if inner == "shims":
        return "shim"
    if inner == "jittor" or "[f " in log or "Jittor" in exc:
        return "Jittor limitation"
    return "wrong rewrite"
