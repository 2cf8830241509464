"""The interpreter and the compiler Jittor builds every kernel with."""
from __future__ import annotations

import os
import re
from typing import Optional

from .base import MSVC_CL, CheckContext, Finding, _version_tuple, interpreter_info

# jittor 1.3.11's METADATA: Requires-Python >=3.7
MIN_PYTHON = (3, 7)


def _compiler_version(ctx: CheckContext, path: str) -> Optional[str]:
    """The compiler's version as Jittor reads it: the last X.Y.Z in ``--version``."""
    status, out = ctx.run([path, "--version"], timeout=15)
    if status != 0:
        return None
    found = re.findall(r"[0-9]+\.[0-9]+\.[0-9]+", out) or re.findall(r"[0-9]+\.[0-9]+", out)
    return found[-1] if found else None


def check_python(ctx: CheckContext) -> Finding:
    """Python version and OS of the interpreter being checked."""
    info = interpreter_info(ctx)
    if "error" in info:
        return Finding("python", "problem", f"cannot run {ctx.python}: {info['error']}",
                       "point doctor at the virtualenv's interpreter: jtport doctor --python .venv/bin/python")
    version = _version_tuple(info["version"])
    text = f"Python {info['version']} ({info['executable']}) on {info['platform']}"
    if version < MIN_PYTHON:
        return Finding("python", "problem", f"{text}: Jittor 1.3.11 needs Python >= 3.7",
                       "create the virtualenv with Python 3.8 or newer (make venvs PY=python3.11)")
    if ctx.system not in ("Linux", "Darwin", "Windows"):
        return Finding("python", "problem", f"{text}: Jittor supports Linux, macOS and Windows only",
                       "run on Linux (or WSL2 on Windows)")
    return Finding("python", "ok", text, details={"version": info["version"], "executable": info["executable"]})


def _check_msvc(ctx: CheckContext) -> Finding:
    known = ('users hit `"...\\.cache\\jittor\\msvc\\VC\\\\\\\\\\\\bin\\cl.exe"` failing to run '
             "(Jittor issue #631); downgrading Jittor (1.3.6.6, 1.3.9.14) did not help")
    fix = "run Jittor under WSL2 (Ubuntu) or on Linux, the workaround that worked for our users"
    cc = ctx.environ.get("cc_path")
    if cc:
        if not os.path.isfile(cc):
            return Finding("compiler", "problem", f"cc_path={cc} does not exist: Jittor cannot compile",
                           "point cc_path at cl.exe, or unset it")
        return Finding("compiler", "ok", f"Windows, compiler from cc_path: {cc}")
    cl = os.path.join(ctx.cache_dir(), MSVC_CL)
    if not os.path.isfile(cl):
        return Finding("compiler", "warning",
                       f"Windows: Jittor will download its own MSVC into {os.path.dirname(cl)} on first "
                       f"import (fails offline); {known}", fix)
    return Finding("compiler", "warning", f"Windows, Jittor's own MSVC at {cl}; {known}", fix)


def check_compiler(ctx: CheckContext) -> Finding:
    """The C++ compiler Jittor compiles its kernels with, and its version."""
    if ctx.system == "Windows":
        return _check_msvc(ctx)
    name = "clang++" if ctx.system == "Darwin" else "g++"
    cc = ctx.environ.get("cc_path")
    if cc is not None:
        if cc == "":
            return Finding("compiler", "problem",
                           "cc_path is set but empty: Jittor stops at once ('Run cmd failed: \"\" --version')",
                           f"unset cc_path, or set it to the full path of {name}")
        path = cc if os.path.isabs(cc) else ctx.which(cc)
        if not path or not os.path.isfile(path):
            return Finding("compiler", "problem", f"cc_path={cc} does not exist: Jittor cannot compile",
                           f"unset cc_path, or set it to the full path of {name}")
        source = "cc_path"
    else:
        path = ctx.which(name)
        if not path:
            other = ctx.which("clang++") if name == "g++" else None
            fix = ("install it (Debian/Ubuntu: apt install g++)" if name == "g++"
                   else "install the command line tools (xcode-select --install)")
            if other:
                fix += f", or use clang: export cc_path={other}"
            return Finding("compiler", "problem",
                           f"{name} not found on PATH: Jittor compiles every kernel with it", fix)
        source = "PATH"
    version = _compiler_version(ctx, path)
    if version is None:
        return Finding("compiler", "problem", f"`{path} --version` failed or printed no version: "
                       "Jittor stops when it cannot read the compiler's version",
                       "reinstall the compiler, or set cc_path to a working g++/clang++")
    return Finding("compiler", "ok", f"{os.path.basename(path)} {version} at {path} (from {source})",
                   details={"path": path, "version": version})


def _unwritable(folder: str) -> Optional[str]:
    """Why ``folder`` cannot be written or created (None when it can): the nearest existing
    folder on its path must be a folder this user may write into."""
    probe = os.path.abspath(folder)
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        return f"{probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    return None


def check_home(ctx: CheckContext) -> Finding:
    """The folders Jittor writes at import: ``$HOME/.cache/jittor`` and its compile cache."""
    home = ctx.environ.get("HOME") or os.path.expanduser("~")
    settings = os.path.join(home, ".cache", "jittor")
    cache = ctx.cache_dir()
    why = _unwritable(settings)
    if why:
        return Finding("home", "problem",
                       f"HOME={home}: {why}, so Jittor cannot create {settings} (its settings, and its compile "
                       "cache unless JITTOR_HOME says otherwise): import jittor stops with an OSError",
                       "export HOME=<a folder you can write> (for instance export HOME=/tmp/$USER), or make "
                       f"{home} writable; JITTOR_HOME alone does not help, Jittor still writes "
                       "$HOME/.cache/jittor/config.json", details={"home": home, "folder": settings})
    why = _unwritable(cache)
    if why and cache != settings:
        return Finding("home", "problem",
                       f"Jittor's compile cache {cache} (JITTOR_HOME) cannot be created: {why}: import jittor "
                       "stops with an OSError",
                       "point JITTOR_HOME at a folder you can write, or unset it (the cache then goes "
                       "under $HOME)", details={"home": home, "folder": cache})
    where = settings if cache == settings else f"{settings} and {cache}"
    return Finding("home", "ok", f"{where} can be written", details={"home": home, "folder": cache})


MPI_FIX = "distributed runs need: apt-get install openmpi-bin libopenmpi-dev"


def check_mpi(ctx: CheckContext) -> Finding:
    """OpenMPI, for distributed runs: Jittor builds its MPI ops with ``mpicc`` when it finds one
    (``jittor/compile_extern.py:setup_mpi``), and ``mpirun`` starts the processes."""
    use_mpi = ctx.environ.get("use_mpi", "1")
    if use_mpi != "1":
        return Finding("mpi", "ok", f"use_mpi={use_mpi}: Jittor's MPI ops are off (single-process runs only)")
    mpicc = ctx.environ.get("mpicc_path")
    if mpicc == "":
        return Finding("mpi", "ok", "mpicc_path is empty: Jittor builds without MPI (single-process runs only)")
    if mpicc is not None and not os.path.isfile(mpicc):
        return Finding("mpi", "problem", f"mpicc_path={mpicc} does not exist: import jittor fails running it",
                       "point mpicc_path at OpenMPI's mpicc, or unset it")
    mpicc = mpicc or ctx.which("mpicc")
    mpirun = ctx.which("mpirun")
    if not mpicc:
        return Finding("mpi", "warning",
                       "no mpicc on PATH" + ("" if mpirun else " and no mpirun")
                       + ": Jittor builds without MPI, so distributed (multi-process) runs are not available; "
                         "single-process runs are unaffected", MPI_FIX)
    status, out = ctx.run([mpicc, "--showme:compile"], timeout=15)
    if status != 0:
        return Finding("mpi", "problem",
                       f"{mpicc} is not OpenMPI's mpicc (`--showme:compile` fails): import jittor runs it "
                       "to build its MPI ops, and stops",
                       f"{MPI_FIX}; or export use_mpi=0 to build Jittor without MPI")
    if not mpirun:
        return Finding("mpi", "warning", f"mpicc at {mpicc} but no mpirun on PATH: Jittor builds its MPI ops, "
                       "but nothing can start a distributed run", MPI_FIX)
    _status, out = ctx.run([mpirun, "--version"], timeout=15)
    version = next((ln.strip() for ln in out.splitlines() if ln.strip()), "mpirun")
    return Finding("mpi", "ok", f"{version} at {mpirun}, mpicc at {mpicc}: distributed runs "
                   "(mpirun -np N python train.py) can start", details={"mpicc": mpicc, "mpirun": mpirun})
