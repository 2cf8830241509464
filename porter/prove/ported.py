"""Convert ``models_ref/`` with the real converter, once, and import the converted modules.

``build/ported/models_ref`` is the output of ``porter.convert_path(models_ref, ...)`` (the same
code path ``jtport convert`` runs); it is reused while a hash of the reference sources and of the
converter (its code and mapping table) is unchanged.  Several pytest processes may run at once:
the conversion happens under a file lock, into a temporary folder that is then swapped in.

:func:`import_ported` imports ``models_ref.<...>`` from ``build/ported`` and checks that the
module really came from there (the torch ``models_ref`` next to it must never be what runs).
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib
import importlib.util
import json
import os
import runpy
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional, Sequence

import porter
from porter import convert_path
from porter.prove.processes import run_module
from porter.prove.workspace import PACKAGE as PORTER
from porter.prove.workspace import ROOT

SOURCE = ROOT / "models_ref"
PORTED = ROOT / "build" / "ported"
PACKAGE = "models_ref"

_converted_key: Optional[str] = None


def _hash_tree(h: "hashlib._Hash", folder: Path, patterns: tuple) -> None:
    for pattern in patterns:
        for f in sorted(folder.rglob(pattern)):
            if "__pycache__" in f.parts:
                continue
            h.update(str(f.relative_to(folder.parent)).encode())
            h.update(f.read_bytes())


def source_key() -> str:
    """Hash of ``models_ref/`` and of the converter (code + mapping table + version)."""
    h = hashlib.sha256()
    _hash_tree(h, SOURCE, ("*.py",))
    _hash_tree(h, PORTER, ("*.py", "*.toml"))
    h.update(str(getattr(porter, "__version__", "")).encode())
    return h.hexdigest()[:16]


class _Lock:
    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.path, "w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def ensure_converted() -> Path:
    """Convert ``models_ref/`` into ``build/ported/models_ref`` unless an up-to-date conversion
    exists; returns ``build/ported``.  The conversion report is ``build/ported/report.json``."""
    global _converted_key
    if _converted_key is not None:  # once per process: later edits apply to the next run
        return PORTED
    key = source_key()
    stamp = PORTED / ".key"
    with _Lock(PORTED.parent / "ported.lock"):
        if not (stamp.exists() and stamp.read_text() == key):
            tmp = PORTED.parent / f"ported.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            report = convert_path(SOURCE, tmp / PACKAGE)
            if report.errors:
                raise RuntimeError("converting models_ref/ failed: " +
                                   "; ".join(f"{e.where()} {e.code} {e.reason}" for e in report.errors))
            (tmp / "report.json").write_text(report.to_json())
            (tmp / ".key").write_text(key)
            old = PORTED.parent / f"ported.old-{os.getpid()}"
            if PORTED.exists():
                PORTED.rename(old)
            tmp.rename(PORTED)
            shutil.rmtree(old, ignore_errors=True)
    _converted_key = key
    return PORTED


def conversion_report() -> dict:
    """The converter's report on ``models_ref/`` (``Report.to_dict()`` form)."""
    return json.loads((ensure_converted() / "report.json").read_text())


def _activate() -> None:
    """Put ``build/ported`` first on ``sys.path`` and drop a torch ``models_ref`` if imported."""
    ported = str(PORTED)
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        f = getattr(sys.modules[name], "__file__", None) or ""
        if not f.startswith(ported + os.sep):
            del sys.modules[name]
    if not sys.path or sys.path[0] != ported:
        if ported in sys.path:
            sys.path.remove(ported)
        sys.path.insert(0, ported)
    importlib.invalidate_caches()


def _prepare(name: str) -> None:
    """Convert (if needed) and activate ``build/ported`` for importing ``name``."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        raise ValueError(f"{name!r} is not inside {PACKAGE}")
    ensure_converted()
    _activate()


def _require_ported(name: str, where: Optional[str]) -> None:
    if not (where or "").startswith(str(PORTED) + os.sep):
        raise ImportError(f"{name} was imported from {where}, not from the port in {PORTED}")


def import_ported(name: str) -> ModuleType:
    """Import the converted module ``name`` (``models_ref.stylegan2.networks``, say)."""
    _prepare(name)
    module = importlib.import_module(name)
    _require_ported(name, getattr(module, "__file__", None))
    return module


def run_ported_main(name: str, argv: Sequence[str]) -> None:
    """Run the converted module ``name`` as ``python -m name *argv`` would (as ``__main__``)."""
    _prepare(name)
    spec = importlib.util.find_spec(name)
    _require_ported(name, spec.origin if spec else None)
    sys.argv = [spec.origin, *argv]
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def run_parity_spec(spec: Path, tmp_path: Path) -> str:
    """Run ``jtport parity SPEC`` as users run it (a process of its own) with the torch side
    from this checkout and the Jittor side from ``build/ported``; assert every check passed
    (forward, gradients, optimizer steps) and return its output."""
    proc = run_module("porter.cli", ["parity", spec, "--out", tmp_path / "out", "--torch-root", ROOT,
                                     "--jittor-root", PORTED], ROOT, tmp_path, timeout=1800)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert "ok   forward" in out and "ok   grads" in out and "ok   steps" in out, out
    return out
