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
