"""Is a usable oneDNN in the place Jittor 1.3.11 looks for it?  (Detection only.)

Jittor builds its oneDNN ops (``jittor/extern/mkl/ops``: convolution forward/backward and
matmul) when ``use_mkl`` is on.  ``jittor/compile_extern.py`` then:

* ``install_mkl``: downloads ``<platform dir>.tgz`` into ``<jittor home>/.cache/jittor/mkl``
  unless ``<platform dir>/lib/libmkldnn.so`` is a file (a download fails offline);
* ``setup_mkl``: takes the first ``dnnl*`` folder there and asserts ``include/`` is a folder
  and ``lib/libmkldnn.so`` a file, then compiles its ops with ``-I include -L lib -lmkldnn``.
  The library's SONAME is ``libdnnl.so.2``, so the loader needs that name in ``lib/`` too.

(``mkl_include_path``/``mkl_lib_path`` cannot point elsewhere: 1.3.11 raises
UnboundLocalError on them.)  :func:`status` checks exactly those things without loading
anything, so :mod:`porter.machine.env` can run it at every import.  The installer is
``porter/doctor/onednn_install.py`` (``jtport install-onednn``).

A leaf: the standard library only (no Jittor, no torch, no ``shims``).
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from typing import Optional, Tuple

# compile_extern.py:install_mkl -- (system, machine) -> the folder its archive unpacks to.
JITTOR_ONEDNN_DIRS = {
    ("Linux", "x86_64"): "dnnl_lnx_2.2.0_cpu_gomp",
    ("Linux", "aarch64"): "dnnl_lnx_2.2.0_cpu_gomp_aarch64",
    ("Windows", "AMD64"): "dnnl_win_2.2.0_cpu_vcomp",
    ("Darwin", "arm64"): "dnnl_mac_2.2.0_cpu_omp_arm64",
    ("Darwin", "x86_64"): "dnnl_mac_2.2.0_cpu_omp_x86_64",
}
# What a Linux oneDNN folder needs: the header Jittor's ops include, the name they link
# against, and the SONAME the loader then looks for.
REQUIRED_FILES = ("include/dnnl.hpp", "lib/libmkldnn.so", "lib/libdnnl.so.2")


@dataclass(frozen=True)
class OneDNNStatus:
    """Whether Jittor would find a working oneDNN, where, and why (or why not)."""

    usable: bool
    folder: Optional[str]
    reason: str


def mkl_dir(jittor_cache: str) -> str:
    """``<jittor cache>/mkl``, where Jittor keeps oneDNN."""
    return os.path.join(jittor_cache, "mkl")


def platform_dir_name(system: Optional[str] = None, machine: Optional[str] = None) -> Optional[str]:
    """The folder name Jittor expects for this platform, or None where Jittor has no oneDNN."""
    key = (system or platform.system(), machine or platform.machine())
    return JITTOR_ONEDNN_DIRS.get(key)


def status(jittor_cache: str, system: Optional[str] = None,
           machine: Optional[str] = None) -> OneDNNStatus:
    """Would ``import jittor`` with ``use_mkl=1`` find oneDNN without downloading it?

    ``jittor_cache`` is ``<jittor home>/.cache/jittor`` (``porter.machine.env.jittor_cache_dir``).
    Only Linux folders are checked file by file (the layout ``jtport install-onednn``
    writes); elsewhere Jittor's own marker files decide.
    """
    system = system or platform.system()
    name = platform_dir_name(system, machine)
    if name is None:
        return OneDNNStatus(False, None, f"Jittor 1.3.11 has no oneDNN build for "
                                         f"{system}/{machine or platform.machine()}")
    root = mkl_dir(jittor_cache)
    folder = os.path.join(root, name)
    if not os.path.isdir(folder):
        return OneDNNStatus(False, None, f"no oneDNN in {root} (Jittor would download {name}.tgz)")
    missing = [f for f in _required(system) if not os.path.isfile(os.path.join(folder, f))]
    if missing:
        return OneDNNStatus(False, folder, f"{folder} is incomplete (missing {', '.join(missing)})")
    others = _other_dnnl_dirs(root, name)
    if others:
        return OneDNNStatus(False, folder, f"{root} holds other oneDNN folders ({', '.join(others)}); "
                                           "Jittor takes whichever it lists first")
    return OneDNNStatus(True, folder, f"oneDNN found in {folder}")


def _required(system: str) -> Tuple[str, ...]:
    if system == "Linux":
        return REQUIRED_FILES
    if system == "Windows":
        return ("bin/dnnl.dll",)
    return ("lib/libmkldnn.dylib",)


def _other_dnnl_dirs(root: str, name: str) -> list:
    try:
        entries = os.listdir(root)
    except OSError:
        return []
    return sorted(e for e in entries
                  if e.startswith("dnnl") and e != name and os.path.isdir(os.path.join(root, e)))
