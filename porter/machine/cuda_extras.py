"""What a CUDA build of Jittor 1.3.11 needs beyond nvcc and its runtime.  (Detection only.)

Measured on an NVIDIA H200 with CUDA 13.0 and no network (2026-11-26): with nvcc and a
working runtime, ``import jittor`` still died three ways before its first kernel, one after
the other:

1. **CUDA 13**: Jittor's ``extern/cuda/inc/helper_cuda.h`` reads ``cudaDeviceProp.computeMode``
   and ``.clockRate``, which CUDA 13 removed, so its core does not compile.  Replacing the two
   reads (:data:`CUDA13_PATCH`) made it compile and run.
2. **Downloads**: ``compile_extern.py`` fetches cuTT, CUTLASS and (with MPI) NCCL from GitHub
   or Jittor's server on first import unless they are in its cache; offline, the import fails.
   ``use_cutt=0``/``use_cutlass=0``/``use_nccl=0`` skip them (Jittor then uses its own
   transposes, no CUTLASS kernels, and MPI without NCCL).
3. **cuDNN**: Jittor loads cublas, cudnn, curand, cufft and cusparse, and any one missing is
   fatal.  It needs cuDNN 8's development files (``cudnn.h`` in the toolkit's include folder or
   ``/usr/include``, and with CUDA >= 11 cuDNN 8's ``libcudnn_cnn_infer.so`` family); cuDNN 9
   has no such libraries.  ``conv_opt=1`` makes it load only cublas and curand (convolutions
   then run on Jittor's own CUDA kernels, and its FFT and sparse ops are off).

With those settings and the patch, Jittor ran on the GPU and the StyleGAN2 and HiSD parity
suites passed with ``use_cuda=1``.  :mod:`porter.machine.env` turns these findings into settings and
``jtport doctor`` explains them.  A leaf like it: the standard library only (no Jittor, no ``shims``).
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence, Tuple

HELPER_CUDA = os.path.join("extern", "cuda", "inc", "helper_cuda.h")
# the field reads CUDA 13 removed, and what replaces them (compute mode "default", a nominal clock)
CUDA13_REMOVED = (("deviceProp.computeMode", "cudaComputeModeDefault"),
                  ("deviceProp.clockRate", "1000000"))
CUDA13_PATCH = ("sed -i 's/deviceProp\\.computeMode/cudaComputeModeDefault/g; "
                "s/deviceProp\\.clockRate/1000000/g' {path}")


@dataclass(frozen=True)
class Download:
    """One library Jittor's ``compile_extern.py`` downloads on first import of a CUDA build."""

    setting: str                 # the variable that turns it off
    folder: str                  # under <jittor home>/.cache/jittor
    present: Tuple[str, ...]     # any of these (relative to folder) means no download
    own_paths: Tuple[str, ...]   # when the user set all of these, Jittor uses them instead
    what: str                    # what turning it off costs


DOWNLOADS = (
    Download("use_cutt", "cutt", ("cutt-1.2.zip",), ("cutt_include_path", "cutt_lib_path"),
             "cuTT transposes (Jittor's own transpose kernels run instead)"),
    Download("use_cutlass", "cutlass", ("cutlass.zip", "cutlass/include/cutlass/cutlass.h"),
             ("cutlass_include_path",), "CUTLASS kernels"),
    Download("use_nccl", "nccl", ("nccl.tgz", "nccl-2.8.4-1/build/lib/libnccl.so"),
             ("nccl_include_path", "nccl_lib_path"), "NCCL collectives (MPI runs without them)"),
)


def cuda_home(nvcc: str) -> str:
    """The toolkit folder Jittor derives from nvcc (``<realpath(nvcc) dir>/..``)."""
    return os.path.abspath(os.path.join(os.path.dirname(os.path.realpath(nvcc)), ".."))


@functools.lru_cache(maxsize=None)
def toolkit_version(nvcc: str) -> Optional[Tuple[int, int]]:
    """(major, minor) of the CUDA toolkit of ``nvcc``: its ``version.json``, else ``nvcc --version``
    (asked once per nvcc and process: the CUDA-13 and cuDNN checks both need it at every import)."""
    try:
        with open(os.path.join(cuda_home(nvcc), "version.json")) as f:
            major, minor = json.load(f)["cuda"]["version"].split(".")[:2]
            return int(major), int(minor)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=15).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def jittor_source_dir() -> Optional[str]:
    """The installed ``jittor`` package folder, found without importing it."""
    spec = importlib.util.find_spec("jittor")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def cuda13_breakage(nvcc: str, jittor_dir: Optional[str]) -> Optional[str]:
    """The ``helper_cuda.h`` that will not compile against this toolkit, or None.

    None when the toolkit is older than CUDA 13, Jittor is not installed, or the header no
    longer reads the removed fields (patched, or a newer Jittor).
    """
    version = toolkit_version(nvcc)
    if jittor_dir is None or version is None or version < (13, 0):
        return None
    header = os.path.join(jittor_dir, HELPER_CUDA)
    try:
        with open(header, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return header if any(old in text for old, _new in CUDA13_REMOVED) else None


def missing_downloads(cache_dir: str, environ: Mapping[str, str]) -> List[Download]:
    """The libraries a CUDA build would download now: not in the cache, no path of the user's."""
    missing = []
    for d in DOWNLOADS:
        if all(environ.get(v) for v in d.own_paths):
            continue
        if any(os.path.exists(os.path.join(cache_dir, d.folder, p)) for p in d.present):
            continue
        missing.append(d)
    return missing


def _found(dirs: Sequence[str], name: str, prefer: Tuple[str, ...] = ()) -> bool:
    """``compile_extern.search_file``'s test: ``name.<prefer>`` or exactly ``name`` in one of ``dirs``."""
    names = [".".join((name,) + prefer[:i]) for i in range(len(prefer), -1, -1)]
    return any(os.path.isfile(os.path.join(d, n)) for d in dirs for n in names)


def cudnn_problem(nvcc: str, machine_lib: str = "/usr/lib/x86_64-linux-gnu") -> Optional[str]:
    """Why Jittor's import would fail loading cuDNN for ``nvcc``, or None when it loads.

    Mirrors ``compile_extern.setup_cuda_lib("cudnn")``: ``cudnn.h`` in the toolkit's include
    folders or ``/usr/include``; ``libcudnn.so`` and, with CUDA >= 11, cuDNN 8's four split
    libraries in the toolkit's bin/lib folders, ``machine_lib`` or ``/usr/lib``, by those exact
    names (``.so.8`` too on CUDA 11).
    """
    home = cuda_home(nvcc)
    includes = [os.path.join(home, "include"), os.path.join(home, "targets", "x86_64-linux", "include"),
                "/usr/include"]
    libs = [os.path.dirname(os.path.realpath(nvcc)), os.path.join(home, "lib64"),
            os.path.join(home, "targets", "x86_64-linux", "lib"), machine_lib, "/usr/lib"]
    if not _found(includes, "cudnn.h"):
        return f"no cudnn.h in {', '.join(includes)}"
    needed = ["libcudnn.so"]
    version = toolkit_version(nvcc)
    prefer = ("8",) if version is not None and version[0] == 11 else ()  # Jittor prefers cuDNN 8 on CUDA 11
    if version is not None and version >= (11, 0):
        needed += ["libcudnn_ops_infer.so", "libcudnn_ops_train.so", "libcudnn_cnn_infer.so",
                   "libcudnn_cnn_train.so"]
    missing = [n for n in needed if not _found(libs, n, prefer)]
    if missing:
        return (f"{', '.join(missing)} not found in {', '.join(libs)} (Jittor 1.3.11 loads cuDNN 8's "
                "libraries; cuDNN 9 has none of them)")
    return None
