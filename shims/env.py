"""The Jittor environment settings this machine needs, decided in ONE place.

Jittor reads a few environment variables at import time.  Two of them decide whether
``import jittor`` works at all on a given machine:

* ``nvcc_path``: Jittor looks for ``nvcc`` and, when it finds one, loads the CUDA runtime
  (``libcudart``).  A machine with the compiler but no loadable runtime (a CUDA toolkit
  without a driver, a container without the GPU libraries) crashes on import.  Setting
  ``nvcc_path=""`` makes Jittor run on the CPU.
* ``use_mkl``: Jittor downloads oneDNN on first import unless ``use_mkl=0``.  Offline, the
  import fails.

This module must stay importable without Jittor (and without the rest of ``shims``): the
Makefile runs it as a plain script (``python3 shims/env.py --exports``), the test
configuration and ``shims/__init__`` call :func:`apply`, and ``jtport doctor`` explains the
same :class:`Setting` objects to users.
"""
from __future__ import annotations

import ctypes
import glob
import os
import shutil
import sys
from dataclasses import dataclass
from typing import Dict, List, Mapping, MutableMapping, Optional


@dataclass(frozen=True)
class Setting:
    """One environment variable Jittor needs on this machine, and why."""

    name: str
    value: str
    reason: str


def find_nvcc(environ: Mapping[str, str] = os.environ) -> Optional[str]:
    """Return the nvcc Jittor would use (``$nvcc_path`` or ``nvcc`` on PATH), or None."""
    if "nvcc_path" in environ:
        return environ["nvcc_path"] or None
    return shutil.which("nvcc", path=environ.get("PATH"))


def cuda_runtime_candidates(nvcc: str) -> List[str]:
    """The ``libcudart`` files Jittor would try next to a given nvcc."""
    cuda_dir = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    found: List[str] = []
    for sub in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
        found.extend(sorted(glob.glob(os.path.join(cuda_dir, sub, "libcudart.so*"))))
    return found


def cuda_runtime_loadable(nvcc: str) -> bool:
    """True when a CUDA runtime library next to ``nvcc`` (or on the loader path) loads,
    and a CUDA driver is present to talk to."""
    libs = cuda_runtime_candidates(nvcc) + ["libcudart.so"]
    runtime_ok = False
    for lib in libs:
        try:
            ctypes.CDLL(lib)
            runtime_ok = True
            break
        except OSError:
            continue
    if not runtime_ok:
        return False
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def jittor_cache_dir(environ: Mapping[str, str] = os.environ) -> str:
    """Where Jittor keeps its compile cache (``~/.cache/jittor`` unless redirected)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "jittor")


def onednn_cached(environ: Mapping[str, str] = os.environ) -> bool:
    """True when a oneDNN build is already unpacked in Jittor's cache (no download needed)."""
    return bool(glob.glob(os.path.join(jittor_cache_dir(environ), "**", "dnnl_*"), recursive=True))


def required_settings(environ: Mapping[str, str] = os.environ) -> List[Setting]:
    """The settings ``import jittor`` needs on this machine, each with its reason.

    A variable the user already set is respected and not listed again.
    """
    settings: List[Setting] = []
    if "nvcc_path" not in environ:
        nvcc = find_nvcc(environ)
        if nvcc and not cuda_runtime_loadable(nvcc):
            settings.append(Setting(
                "nvcc_path", "",
                f"nvcc is installed ({nvcc}) but no CUDA runtime/driver can be loaded; "
                "Jittor would crash importing libcudart. Empty nvcc_path runs Jittor on the CPU."))
    if "use_mkl" not in environ and not onednn_cached(environ):
        settings.append(Setting(
            "use_mkl", "0",
            "oneDNN is not in Jittor's cache and Jittor would download it on first import "
            "(fails offline). use_mkl=0 uses Jittor's own CPU kernels."))
    return settings


def apply(environ: MutableMapping[str, str] = os.environ) -> List[Setting]:
    """Set every required setting in ``environ`` (before ``import jittor``); return them."""
    settings = required_settings(environ)
    for s in settings:
        environ.setdefault(s.name, s.value)
    return settings


def exports(environ: Mapping[str, str] = os.environ) -> str:
    """The settings as ``NAME=value`` words for ``env`` in a Makefile or shell."""
    return " ".join(f"{s.name}={s.value}" for s in required_settings(environ))


def as_dict(environ: Mapping[str, str] = os.environ) -> Dict[str, str]:
    """The settings as a dict, for ``subprocess`` environments."""
    return {s.name: s.value for s in required_settings(environ)}


if __name__ == "__main__":
    if sys.argv[1:] == ["--exports"]:
        print(exports())
    else:
        for s in required_settings():
            print(f"{s.name}={s.value!r}: {s.reason}")
