"""The Jittor environment settings this machine needs, decided in ONE place.

Jittor reads a few environment variables at import time.  Two of them decide whether
``import jittor`` works at all on a given machine:

* ``nvcc_path``: Jittor looks for ``nvcc`` and, when it finds one, loads the CUDA runtime
  (``libcudart``).  A machine with the compiler but no loadable runtime (a CUDA toolkit
  without a driver, a container without the GPU libraries) crashes on import.  Setting
  ``nvcc_path=""`` makes Jittor run on the CPU.
* ``use_mkl``: with it on (Jittor's default) Jittor runs convolutions and matmuls on oneDNN,
  which it downloads on first import when it is not in its cache (offline, the import fails).
  jtport turns it on exactly when a usable oneDNN is in place (:mod:`porter.machine.onednn`;
  ``jtport install-onednn`` puts one there from PyPI) and off otherwise; ``use_mkl`` set by
  the user wins either way.

On a machine where Jittor will use CUDA, :func:`cuda_settings` adds what its CUDA build needs
(:mod:`porter.machine.cuda_extras`: a CUDA 13 toolkit its core cannot compile against, the libraries it
would download at import, cuDNN it cannot load).

A leaf (``porter/machine/``): it imports the standard library only, so every interpreter imports
it without Jittor: the Makefile runs it (``python3 -m porter.machine.env --exports``), the test
configuration and ``shims/__init__`` call :func:`apply`, and ``jtport doctor`` (``porter/doctor/``)
explains the same :class:`Setting` objects to users.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import sys
from urllib.parse import quote, unquote
from dataclasses import dataclass
from typing import Dict, List, Mapping, MutableMapping, Optional, Sequence

from . import cuda_extras, onednn

#: The Jittor release jtport runs on (the Makefile installs it at :func:`jittor_site`).
JITTOR_VERSION = "1.3.11.0"

#: Kernel flags for IEEE arithmetic: Jittor adds -Ofast only when ``cc_flags`` names no ``-O`` level.
IEEE_CC_FLAGS = "-O2"
#: Jittor's ``kernel_flags`` (g++ flags for its kernels only, after ``cc_flags``; its core keeps -O2):
#: let g++ vectorise without changing an IEEE result.  ``-fno-math-errno``: ``sqrt`` and ``exp`` set no
#: ``errno`` (torch never reads it), so they vectorise; ``-fno-trapping-math``: no trap semantics.
#: ``-D__FAST_MATH__`` only makes glibc's ``math.h`` declare its vector math library (libmvec:
#: ``expf`` on 8 floats at a time, 1-4 ulp like torch's own vectorised Sleef kernels); the compiler's
#: arithmetic stays IEEE (``-ffast-math`` is not given).  ``bench/bench_arithmetic.py`` measures them.
IEEE_KERNEL_FLAGS = "-O3 -fno-math-errno -fno-trapping-math -D__FAST_MATH__"
#: Jittor's cache name for those kernels, and for ``JTPORT_FAST_MATH=1``'s (-Ofast); a plain
#: ``import jittor`` keeps ``default``.  A new name for new kernel flags: kernels compiled with other
#: flags under one name are recompiled in turn.
IEEE_CACHE_NAME = "jtport_ieee_vec"
FAST_CACHE_NAME = "jtport_fast"
#: ``--exports`` writes a value with spaces (which words for ``env`` cannot carry) as
#: ``JTPORT_QUOTED_<name>=<percent-encoded value>``; :func:`apply` decodes it before Jittor is imported.
QUOTED_PREFIX = "JTPORT_QUOTED_"

#: The nvcc flag Jittor 1.3.11 adds to every CUDA kernel (jittor/compiler.py, whatever ``cc_flags``
#: says): flush-to-zero, approximate division and square root, intrinsic exp/log.  Measured on an
#: H200 (docs/results.md): 29 of the 41 IEEE cases fail with it.
CUDA_FAST_MATH_FLAG = "--use_fast_math"


def ieee_nvcc_flags(nvcc_flags: str, cc_flags: str) -> str:
    """Jittor's nvcc flags for kernels compiled under ``cc_flags``: without
    :data:`CUDA_FAST_MATH_FLAG` where the CPU kernels compute IEEE arithmetic (no ``-Ofast``), so
    CUDA kernels round as the CPU ones and torch's do; unchanged under fast math."""
    if "-Ofast" in cc_flags.split():
        return nvcc_flags
    return " ".join(word for word in nvcc_flags.split(" ") if word != CUDA_FAST_MATH_FLAG)


def kernel_python(python_path: str, jittor_root: str, executable: str = sys.executable,
                  base: Optional[str] = None, environ: Mapping[str, str] = os.environ) -> str:
    """The interpreter path Jittor should write into each kernel's build command.

    Jittor 1.3.11 builds a CPU kernel with ``<python_path> asm_tuner.py --cc_path=g++ ...`` and
    keys its on-disk cache on that whole command, so every new path to an interpreter (a fresh
    clone's ``.venv``, CI's checkout, a symlinked worktree) recompiled every kernel, under the
    machine-wide compile lock.  ``asm_tuner.py`` needs the standard library and Jittor's
    ``jittor_utils`` only, so the command names a small launcher at a path fixed per base
    interpreter and Jittor folder (:func:`kernel_launcher`), and every checkout and virtualenv
    shares one key per kernel.  A ``python_path`` that is not this interpreter (the user set
    one), or a venv whose base interpreter is unknown, is kept."""
    here = os.path.dirname(executable)
    if not python_path or os.path.dirname(python_path) != here:
        return python_path
    base = os.path.realpath(base or getattr(sys, "_base_executable", "") or executable)
    if not os.path.isfile(base) or not os.path.isdir(jittor_root):
        return python_path
    try:
        return kernel_launcher(base, jittor_root, environ)
    except OSError:  # a read-only home: the venv's own path still works, keyed per venv
        return python_path


def kernel_launcher(base: str, jittor_root: str, environ: Mapping[str, str] = os.environ) -> str:
    """Write (once) and return ``<jittor_home>/.cache/jtport/kernel-python/<hash>/python``: runs
    ``base`` with ``jittor_root`` (the folder holding ``jittor_utils``) first on its path."""
    digest = hashlib.sha256(f"{base}\0{jittor_root}".encode()).hexdigest()[:12]
    folder = os.path.join(jittor_home(environ), ".cache", "jtport", "kernel-python", digest)
    launcher = os.path.join(folder, "python")
    text = ("#!/bin/sh\n# jtport (porter/machine/env.py): Jittor's kernel tuner at one path for "
            "every checkout\n"
            f"PYTHONPATH='{jittor_root}'\"${{PYTHONPATH:+:$PYTHONPATH}}\" exec '{base}' \"$@\"\n")
    try:
        with open(launcher) as f:
            if f.read() == text:
                return launcher
    except OSError:
        pass
    os.makedirs(folder, exist_ok=True)
    tmp = f"{launcher}.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, launcher)
    return launcher


# Where Jittor 1.3.11 looks for nvcc after ``$nvcc_path`` and ``PATH`` (jittor/compiler.py).
JITTOR_NVCC_FALLBACKS = ("/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc", "/opt/cuda/bin/nvcc")


@dataclass(frozen=True)
class Setting:
    """One environment variable Jittor needs on this machine, and why."""

    name: str
    value: str
    reason: str


def jittor_home(environ: Mapping[str, str] = os.environ) -> str:
    """The folder Jittor puts ``.cache/jittor`` under, decided as ``jittor_utils.home()`` does.

    ``$JITTOR_HOME`` wins; otherwise a ``JITTOR_HOME`` that Jittor persisted in
    ``$HOME/.cache/jittor/config.json`` (it writes one whenever the variable was set once);
    otherwise ``$HOME``.
    """
    home = environ.get("HOME") or os.path.expanduser("~")
    if environ.get("JITTOR_HOME"):
        return os.path.abspath(environ["JITTOR_HOME"])
    persisted = persisted_jittor_home(environ)
    return os.path.abspath(persisted or home)


def persisted_jittor_home(environ: Mapping[str, str] = os.environ) -> Optional[str]:
    """The ``JITTOR_HOME`` recorded in ``$HOME/.cache/jittor/config.json``, or None."""
    home = environ.get("HOME") or os.path.expanduser("~")
    config = os.path.join(home, ".cache", "jittor", "config.json")
    try:
        with open(config, encoding="utf8") as f:
            value = json.load(f).get("JITTOR_HOME")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def find_nvcc(environ: Mapping[str, str] = os.environ,
              fallbacks: Sequence[str] = JITTOR_NVCC_FALLBACKS) -> Optional[str]:
    """Return the nvcc Jittor would use, or None.

    Jittor's order: ``$nvcc_path`` (empty means "no CUDA"), ``nvcc`` on PATH, then the
    fixed locations in ``fallbacks``.
    """
    if "nvcc_path" in environ:
        return environ["nvcc_path"] or None
    found = shutil.which("nvcc", path=environ.get("PATH", os.defpath))
    if found:
        return found
    for path in fallbacks:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def cuda_runtime_candidates(nvcc: str) -> List[str]:
    """The ``libcudart`` file Jittor loads for a given nvcc (jittor/compiler.py ``check_cuda``).

    Jittor resolves nvcc's symlinks and loads exactly ``<nvcc dir>/../lib64/libcudart.so``
    (``/usr/lib/x86_64-linux-gnu/libcudart.so`` for a distribution's ``/usr/bin/nvcc``); a
    runtime elsewhere on the loader path does not help it.
    """
    if nvcc == "/usr/bin/nvcc":
        return ["/usr/lib/x86_64-linux-gnu/libcudart.so"]
    cuda_dir = os.path.dirname(os.path.realpath(nvcc))
    return [os.path.abspath(os.path.join(cuda_dir, "..", "lib64", "libcudart.so"))]


def cuda_runtime_loadable(nvcc: str) -> bool:
    """True when the CUDA runtime library Jittor loads for ``nvcc`` loads, and a CUDA
    driver (``libcuda.so.1``) is present to talk to."""
    runtime_ok = False
    for lib in cuda_runtime_candidates(nvcc):
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


def jittor_site(environ: Mapping[str, str] = os.environ, version: str = JITTOR_VERSION) -> str:
    """The folder Jittor itself is installed in, shared by every checkout and virtualenv.

    Jittor keys its compile cache on the path of its installed files (``jittor_utils`` hashes its
    own ``__file__``) and writes that path into every kernel's compile command, so a Jittor
    installed inside a checkout's ``.venv`` recompiles its core and every kernel in each new
    checkout.  Installed once per Jittor and Python version under Jittor's home (the Makefile's
    ``venvs`` does it; ``.venv`` sees it through a ``.pth`` file), every checkout shares one cache.
    """
    python = ".".join(str(v) for v in sys.version_info[:3])
    return os.path.join(jittor_home(environ), ".cache", "jtport", f"jittor-{version}-py{python}")


def jittor_cache_dir(environ: Mapping[str, str] = os.environ) -> str:
    """Where Jittor keeps its caches (``<jittor_home>/.cache/jittor``, normally ``~/.cache/jittor``)."""
    return os.path.join(jittor_home(environ), ".cache", "jittor")


def onednn_status(environ: Mapping[str, str] = os.environ):
    """:func:`porter.machine.onednn.status` for this environment's Jittor cache."""
    return onednn.status(jittor_cache_dir(environ))


def ieee_arithmetic(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether jtport sets Jittor's kernels to IEEE arithmetic here (the default).

    Not when the user chose compiler flags (``cc_flags``) or opted into Jittor's fast math
    (``JTPORT_FAST_MATH=1``).
    """
    return "cc_flags" not in environ and environ.get("JTPORT_FAST_MATH", "0") != "1"


def required_settings(environ: Mapping[str, str] = os.environ,
                      nvcc_fallbacks: Sequence[str] = JITTOR_NVCC_FALLBACKS) -> List[Setting]:
    """The settings ``import jittor`` needs on this machine, each with its reason.

    A variable the user already set is respected and not listed again.  ``nvcc_fallbacks``
    are the fixed nvcc locations Jittor tries (tests pass their own).
    """
    settings: List[Setting] = []
    nvcc = find_nvcc(environ, nvcc_fallbacks)
    if nvcc and "nvcc_path" not in environ and not cuda_runtime_loadable(nvcc):
        settings.append(Setting(
            "nvcc_path", "",
            f"nvcc is installed ({nvcc}) but no CUDA runtime/driver can be loaded; "
            "Jittor would crash importing libcudart. Empty nvcc_path runs Jittor on the CPU."))
    elif nvcc:
        settings += cuda_settings(nvcc, environ)
    if "use_mkl" not in environ:
        onednn = onednn_status(environ)
        if onednn.usable:
            settings.append(Setting(
                "use_mkl", "1",
                f"{onednn.reason}: Jittor runs convolutions and matmuls on it "
                "(about torch's speed on a CPU; without it ~10-50x slower)."))
        else:
            settings.append(Setting(
                "use_mkl", "0",
                f"no usable oneDNN ({onednn.reason}) and Jittor would download one on first "
                "import (fails offline). use_mkl=0 uses Jittor's own, much slower, CPU kernels. "
                "Fix: jtport install-onednn."))
    ieee = ieee_arithmetic(environ)
    if ieee:
        settings.append(Setting(
            "cc_flags", IEEE_CC_FLAGS,
            "Jittor compiles its kernels with -Ofast (finite math, reciprocal division): 1/0 is NaN, "
            "2/1 is 1.9999999, isinf never fires. An explicit optimisation level makes Jittor drop "
            "-Ofast, so kernels compute IEEE arithmetic as torch does. JTPORT_FAST_MATH=1 keeps "
            "Jittor's -Ofast (faster elementwise kernels, torch's results not guaranteed)."))
        if "kernel_flags" not in environ:
            settings.append(Setting(
                "kernel_flags", IEEE_KERNEL_FLAGS,
                "Without -Ofast g++ vectorises few of Jittor's kernels; these flags let it vectorise "
                "elementwise chains, exp and log included (glibc's vector math library), and keep every "
                "IEEE result (-ffast-math is not given; bench/bench_arithmetic.py measures them)."))
    if "cache_name" not in environ:
        fast = environ.get("JTPORT_FAST_MATH", "0") == "1"
        name = IEEE_CACHE_NAME if ieee else FAST_CACHE_NAME if fast else "default"
        settings.append(Setting(
            "cache_name", name,
            "Jittor names its compile cache after the git branch of the folder it is installed "
            "in; with a virtualenv inside your checkout every new branch would recompile Jittor's "
            "core (~2 minutes). One cache for all branches"
            + (", and one of jtport's own for each arithmetic mode: a kernel compiled with other flags "
               "under the same name is recompiled, so a plain `import jittor` and jtport's would take "
               "turns recompiling Jittor's core." if ieee or fast else ".")))
    return settings


def cuda_settings(nvcc: str, environ: Mapping[str, str] = os.environ,
                  jittor_dir: Optional[str] = None) -> List[Setting]:
    """What a CUDA build of Jittor needs on this machine besides nvcc (:mod:`porter.machine.cuda_extras`).

    A toolkit Jittor's core cannot compile against turns CUDA off (``nvcc_path=""``, unless the
    user set ``nvcc_path``); otherwise each library Jittor would download at import is turned off,
    and ``conv_opt=1`` when cuDNN cannot be loaded.  Variables the user set are respected.
    ``jittor_dir`` is the installed Jittor (tests pass their own).
    """
    extras = cuda_extras
    jittor_dir = jittor_dir or extras.jittor_source_dir()
    header = extras.cuda13_breakage(nvcc, jittor_dir)
    if header is not None:
        if "nvcc_path" in environ:
            return []  # the user asked for this nvcc: doctor reports the breakage
        return [Setting("nvcc_path", "",
                        f"CUDA >= 13 ({nvcc}): Jittor 1.3.11's {header} reads cudaDeviceProp fields "
                        "CUDA 13 removed, so its core would not compile. Empty nvcc_path runs Jittor on "
                        f"the CPU. For the GPU: {extras.CUDA13_PATCH.format(path=header)}")]
    settings = []
    cache = jittor_cache_dir(environ)
    for d in extras.missing_downloads(cache, environ):
        if d.setting not in environ:
            settings.append(Setting(
                d.setting, "0",
                f"Jittor's CUDA build would download {d.folder} into "
                f"{os.path.join(cache, d.folder)} on first import (fails offline); "
                f"off: no {d.what}. {d.setting}=1 lets it download."))
    cudnn = extras.cudnn_problem(nvcc)
    if cudnn is not None and "conv_opt" not in environ:
        settings.append(Setting(
            "conv_opt", "1",
            f"Jittor cannot load cuDNN ({cudnn}), and any CUDA library it cannot load stops its "
            "import. conv_opt=1 loads only cublas and curand: convolutions run on Jittor's own CUDA "
            "kernels; FFT and sparse ops are off. Install cuDNN 8's development files for cuDNN."))
    return settings


def apply(environ: MutableMapping[str, str] = os.environ) -> List[Setting]:
    """Set every required setting in ``environ`` (before ``import jittor``); return them.

    Values :func:`exports` had to encode (``JTPORT_QUOTED_<name>``) are decoded first.
    """
    decode_quoted(environ)
    settings = required_settings(environ)
    for s in settings:
        environ.setdefault(s.name, s.value)
    return settings


def decode_quoted(environ: MutableMapping[str, str]) -> None:
    """Set each ``<name>`` that :func:`export_word` encoded as ``JTPORT_QUOTED_<name>`` (unless set)."""
    for key in [k for k in environ if k.startswith(QUOTED_PREFIX)]:
        environ.setdefault(key[len(QUOTED_PREFIX):], unquote(environ[key]))


def export_word(name: str, value: str) -> str:
    """``NAME=value`` as one word for ``env``: a value with whitespace goes, percent-encoded, to
    ``JTPORT_QUOTED_NAME`` (decoded by :func:`apply`; a process that skips it runs without it)."""
    if value.split() == [value] or not value:
        return f"{name}={value}"
    return f"{QUOTED_PREFIX}{name}={quote(value, safe='')}"


def exports(environ: Mapping[str, str] = os.environ) -> str:
    """The settings as ``NAME=value`` words for ``env`` in a Makefile or shell (:func:`export_word`)."""
    return " ".join(export_word(s.name, s.value) for s in required_settings(environ))


def as_dict(environ: Mapping[str, str] = os.environ) -> Dict[str, str]:
    """The settings as a dict, for ``subprocess`` environments."""
    return {s.name: s.value for s in required_settings(environ)}


if __name__ == "__main__":
    if sys.argv[1:] == ["--exports"]:
        print(exports())
    elif sys.argv[1:] == ["--jittor-site"]:
        print(jittor_site())
    else:
        for s in required_settings():
            print(f"{s.name}={s.value!r}: {s.reason}")
