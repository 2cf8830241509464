"""Fake machines for the doctor's tests: executables, dist-info folders and caches in a temp dir.

Each helper creates one condition a check looks for, so a test provokes it without touching
the real machine (no real CUDA, network or Jittor cache is needed).
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Dict, Optional

from porter.doctor import checks as DOC
from porter.machine import env as ENV  # noqa: F401  (the settings; the tests import it from here)



def make_exe(folder: Path, name: str, body: str) -> Path:
    """Write an executable ``/bin/sh`` script ``folder/name`` running ``body``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_dist(site: Path, name: str, version: str, requires: tuple = ()) -> Path:
    """A ``<name>-<version>.dist-info`` folder that ``importlib.metadata`` finds on ``site``."""
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("")
    return info


def fake_python(folder: Path, import_probe: str) -> Path:
    """A ``python`` that runs the real interpreter, except for doctor's ``import jittor`` probe,
    where it runs the shell snippet ``import_probe`` instead."""
    return make_exe(folder, "python", f'case "$*" in *JTPORT_IMPORT_PROBE*) {import_probe};; esac\n'
                                      f'exec "{sys.executable}" "$@"')


def base_environ(tmp: Path, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """A minimal environment: a temp HOME, the fake ``bin`` first on PATH, then the system's
    basic tools (g++, git; not /usr/local/bin, where this machine's nvcc is)."""
    (tmp / "home").mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(tmp / "home"), "PATH": f"{tmp / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    env.update(extra or {})
    return env


def context(tmp: Path, extra: Optional[Dict[str, str]] = None, **kw):
    """A CheckContext on the fake machine in ``tmp`` (no fixed nvcc locations, no /dev GPUs)."""
    kw.setdefault("nvcc_fallbacks", ())
    kw.setdefault("dev_dir", str(tmp / "dev"))
    kw.setdefault("can_reach", lambda host: False)
    return DOC.CheckContext(environ=base_environ(tmp, extra), **kw)


def cache_dir(tmp: Path) -> Path:
    """Jittor's cache folder for the fake HOME."""
    return tmp / "home" / ".cache" / "jittor"


def real_environ(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """This machine's environment (its real, already compiled Jittor cache) plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("nvcc_path", "use_mkl")}
    env.update(extra or {})
    return env
