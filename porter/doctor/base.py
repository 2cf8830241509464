"""What every doctor check shares: :class:`Finding`, :class:`Check`, :class:`CheckContext`, and the
probes of the interpreter being checked.

Each :class:`Check` looks at one thing (the compiler, CUDA, Jittor's caches, numpy, ...) and
returns one :class:`Finding`: ``ok``, ``warning`` or ``problem`` (a problem stops Jittor), a
message saying what was found and a fix in plain words.  A check's ``description`` is the
user-facing explanation docs/troubleshooting.md is generated from.

Everything a check looks at comes from a :class:`CheckContext` (environment variables, which
gives PATH and HOME; the Python executable to probe; the user's project folder; the OS), so
tests provoke each condition in a temporary folder.  The doctor never imports Jittor or
torch: the Python being checked is probed in subprocesses with a timeout.  The settings
Jittor needs are :func:`porter.machine.env.required_settings`'s (``_env``), never decided again here.

Names, paths, archive names and MD5s in this package are read from Jittor 1.3.11's own source
(``jittor_utils/__init__.py``, ``jittor/compiler.py``, ``jittor/compile_extern.py``,
``jittor_utils/install_cuda.py``, ``jittor/dataset/mnist.py``).
"""
from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import platform
import re
import shutil
import socket
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from porter.machine import env as _env  # the settings these checks explain


STATUSES = ("ok", "warning", "problem")

# Jittor 1.3.11 downloads its optional pieces from here.
JITTOR_ASSETS_HOST = "cg.cs.tsinghua.edu.cn"
JITTOR_ASSETS_URL = f"https://{JITTOR_ASSETS_HOST}/jittor/assets/"


# jittor_utils/__init__.py: the MSVC Jittor installs for itself on Windows
MSVC_CL = os.path.join("msvc", "VC", r"_\_\_\_\_\bin", "cl.exe")


@dataclass(frozen=True)
class Finding:
    """The verdict of one check: status (``ok``/``warning``/``problem``), what, and the fix."""

    check: str
    status: str
    message: str
    fix: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"Finding.status must be one of {STATUSES}, got {self.status!r}")

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready dict."""
        return {"check": self.check, "status": self.status, "message": self.message,
                "fix": self.fix, "details": dict(self.details)}


def host_reachable(host: str, timeout: float = 3.0) -> bool:
    """True when a TCP connection to ``host``:443 opens within ``timeout`` seconds (DNS included)."""
    result: List[bool] = []

    def connect():
        try:
            socket.create_connection((host, 443), timeout=timeout).close()
            result.append(True)
        except OSError:
            result.append(False)
    # a daemon thread: a DNS lookup that hangs must not hold the doctor past its timeout
    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(result and result[0])


@dataclass
class CheckContext:
    """Everything the checks look at, so that tests can provoke each condition.

    ``environ`` supplies PATH, HOME and Jittor's variables; ``python`` is the interpreter
    whose Jittor is checked (probed in subprocesses); ``project`` is the user's code folder
    (scanned for dead dataset URLs); ``system``/``machine`` are ``platform``'s names;
    ``dev_dir`` holds the ``nvidia*`` device files; ``can_reach(host)`` tells whether a
    download host answers.
    """

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    python: str = sys.executable
    project: Optional[str] = None
    timeout: float = 60.0
    system: str = platform.system()
    machine: str = platform.machine()
    nvcc_fallbacks: Sequence[str] = _env.JITTOR_NVCC_FALLBACKS
    dev_dir: str = "/dev"
    meminfo: str = "/proc/meminfo"
    can_reach: Callable[[str], bool] = host_reachable
    _memo: Dict[str, Any] = field(default_factory=dict, repr=False)

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """Compute a probe once per context (several checks share a subprocess)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def which(self, name: str) -> Optional[str]:
        """``name`` looked up on this context's PATH."""
        return shutil.which(name, path=self.environ.get("PATH", os.defpath))

    def settings(self) -> List[Any]:
        """:func:`shims.env.required_settings` for this context."""
        return self.memo("settings", lambda: _env.required_settings(self.environ, self.nvcc_fallbacks))

    def jittor_environ(self) -> Dict[str, str]:
        """The environment Jittor runs with under jtport: this one plus the required settings."""
        env = dict(self.environ)
        _env.decode_quoted(env)  # what `make` exports encoded (kernel_flags)
        for s in self.settings():
            env.setdefault(s.name, s.value)
        return env

    def cache_dir(self) -> str:
        """Jittor's cache folder (``<jittor home>/.cache/jittor``)."""
        return _env.jittor_cache_dir(self.environ)

    def run(self, argv: Sequence[str], timeout: float, env: Optional[Mapping[str, str]] = None
            ) -> Tuple[Optional[int], str]:
        """Run a command; return (exit status, or None on timeout, and stdout+stderr).

        The command gets its own process group, and on timeout the whole group is killed:
        ``import jittor`` starts compiler processes that would otherwise outlive it.
        """
        try:
            proc = subprocess.Popen(list(argv), env=dict(env if env is not None else self.environ),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=os.name == "posix")
        except OSError as e:
            return 127, f"{argv[0]}: {e.strerror or e}"
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                out, _ = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                out = b""
            return None, (out or b"").decode("utf8", "replace")
        return proc.returncode, out.decode("utf8", "replace")


def _kill_group(proc: subprocess.Popen) -> None:
    """Stop a process started by :meth:`CheckContext.run` and everything it started.

    SIGTERM first: in a process that has imported Jittor, a child that dies of any other
    signal makes Jittor's SIGCHLD handler end the parent too ("Caught SIGCHLD ... quick exit",
    jittor/src/utils/log.cc).  SIGKILL only if SIGTERM did not work within a few seconds.
    """
    if os.name != "posix":
        proc.kill()
        return
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 0)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            return  # already gone
        try:
            proc.wait(timeout=grace or None)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass(frozen=True)
class Check:
    """One doctor check: a name, a title and description for people, and the function."""

    name: str
    title: str
    description: str
    run: Callable[[CheckContext], Finding]


# --------------------------------------------------------------------------- probes

_PROBE_TAG = "JTPORT_PROBE "
# The quick probes (no Jittor compile) get a fixed allowance; ctx.timeout is for `import jittor`.
PROBE_TIMEOUT = 30.0

_INTERPRETER_PROBE = r"""
import json, os, platform, sys
info = {"version": platform.python_version(), "executable": sys.executable,
        "prefix": sys.prefix, "platform": platform.platform(), "packages": {}}
try:
    from importlib import metadata
except ImportError:
    metadata = None
for name in ("numpy", "torch", "jittor", "jittor_offline"):
    if metadata is None:
        break
    try:
        d = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        continue
    p = getattr(d, "_path", None)
    stamp = None
    if p is not None:
        record = os.path.join(str(p), "RECORD")
        stamp = os.path.getmtime(record if os.path.exists(record) else str(p))
    info["packages"][name] = {"version": d.version, "requires": d.requires or [],
                              "installed_at": stamp, "location": str(d.locate_file(""))}
print("JTPORT_PROBE " + json.dumps(info))
"""

_JITTOR_UTILS_PROBE = r"""
import json, os
import jittor_utils as u
print("JTPORT_PROBE " + json.dumps({"cache_path": u.cache_path, "cc_path": u.cc_path,
      "cc_type": u.cc_type, "home": u.home(), "cache_name": os.environ.get("cache_name")}))
"""

_IMPORT_PROBE = r"""
# JTPORT_IMPORT_PROBE
import json, time
t0 = time.time()
import jittor as jt, jittor_utils, numpy
value = float((jt.ones(3) * 2).sum().item())
print("JTPORT_PROBE " + json.dumps({"version": jt.__version__, "cache_path": jittor_utils.cache_path,
      "has_cuda": int(jt.compiler.has_cuda), "numpy": numpy.__version__, "kernel_ok": value == 6.0,
      "seconds": time.time() - t0}))
"""


def _parse_probe(status: Optional[int], output: str, timeout: float) -> Dict[str, Any]:
    """The JSON a probe printed, or ``{"error": ..., "output": ...}``."""
    if status is None:
        return {"error": f"did not finish within {timeout:g} s", "timed_out": True, "output": output}
    for line in reversed(output.splitlines()):
        if line.startswith(_PROBE_TAG):
            try:
                return json.loads(line[len(_PROBE_TAG):])
            except ValueError:
                break
    return {"error": _error_line(output) or f"exit status {status}", "output": output}


def _error_line(output: str) -> str:
    """The most telling line of a failed run's output (the exception, else the last line)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception|Exit)\b", line) or "Error:" in line:
            return line
    return lines[-1] if lines else ""


def interpreter_info(ctx: CheckContext) -> Dict[str, Any]:
    """Python version, platform and the numpy/torch/jittor installs of ``ctx.python``."""
    def probe():
        return _parse_probe(*ctx.run([ctx.python, "-c", _INTERPRETER_PROBE], PROBE_TIMEOUT), PROBE_TIMEOUT)
    return ctx.memo("interpreter", probe)


def _package(ctx: CheckContext, name: str) -> Optional[Dict[str, Any]]:
    return interpreter_info(ctx).get("packages", {}).get(name)


def jittor_utils_info(ctx: CheckContext) -> Dict[str, Any]:
    """Jittor's own answer for its cache path and compiler (``import jittor_utils``: no compiling)."""
    def probe():
        if _package(ctx, "jittor") is None:
            return {"error": "jittor is not installed"}
        if ctx.system == "Windows" and not ctx.environ.get("cc_path") and \
                not os.path.isfile(os.path.join(ctx.cache_dir(), MSVC_CL)):
            return {"error": "not probed: importing jittor_utils would download MSVC"}
        return _parse_probe(*ctx.run([ctx.python, "-c", _JITTOR_UTILS_PROBE], PROBE_TIMEOUT,
                                     ctx.jittor_environ()), PROBE_TIMEOUT)
    return ctx.memo("jittor_utils", probe)


def jittor_import_info(ctx: CheckContext) -> Dict[str, Any]:
    """``import jittor`` and one tiny kernel, in a subprocess with the jtport settings."""
    def probe():
        return _parse_probe(*ctx.run([ctx.python, "-c", _IMPORT_PROBE], ctx.timeout,
                                     ctx.jittor_environ()), ctx.timeout)
    return ctx.memo("jittor_import", probe)


def _core_builds(cache_path: str) -> List[str]:
    """Jittor's compiled core in a cache folder (``jittor_core.<python tag>.so``/``.pyd``)."""
    return sorted(p for p in glob.glob(os.path.join(cache_path, "jittor_core*")) if not p.endswith(".key"))


def _md5(path: str) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _dir_size(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def _version_tuple(text: str) -> Tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        m = re.match(r"\d+", piece)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def _satisfies(version: str, spec: str) -> bool:
    """``version`` meets a simple requirement such as ``<2.0`` or ``>=1.20,<2``."""
    ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    have = _version_tuple(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        m = re.match(r"(<=|>=|==|!=|<|>)\s*([\w.]+)", clause)
        if not m:
            continue
        want = _version_tuple(m.group(2))
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        if not ops[m.group(1)](a, b):
            return False
    return True


def _requirement(requires: Sequence[str], name: str) -> Optional[str]:
    """The version specifier a package's metadata gives for ``name`` (``"<2.0"``), or None."""
    for req in requires:
        m = re.match(rf"^\s*{re.escape(name)}\s*\(?\s*([^;)]*)\)?\s*(;.*)?$", req, re.I)
        if m and not (m.group(2) or "").strip("; "):
            return m.group(1).strip()
    return None


def _jtport_setting(ctx: CheckContext, name: str):
    """The :class:`Setting` jtport itself would choose for ``name`` (ignoring the current value),
    so a value that came from jtport (``make`` exports them) is shown with its reason."""
    others = {k: v for k, v in ctx.environ.items() if k != name}
    return next((s for s in _env.required_settings(others, ctx.nvcc_fallbacks) if s.name == name), None)


def worst_status(findings: Sequence[Finding]) -> str:
    """The most severe status among ``findings`` (``ok`` when empty)."""
    return max((f.status for f in findings), key=STATUSES.index, default="ok")
