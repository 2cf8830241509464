"""The checks behind ``jtport doctor``: what stops or slows Jittor on a machine, and the fix.

Each :class:`Check` looks at one thing (the compiler, CUDA, Jittor's caches, numpy, ...) and
returns one :class:`Finding`: ``ok``, ``warning`` or ``problem`` (a problem stops Jittor), a
message saying what was found and a fix in plain words.  A check's ``description`` is the
user-facing explanation the README's Troubleshooting section is generated from.

Everything a check looks at comes from a :class:`CheckContext` (environment variables, which
gives PATH and HOME; the Python executable to probe; the user's project folder; the OS), so
tests provoke each condition in a temporary folder.  This module never imports Jittor or
torch: the Python being checked is probed in subprocesses with a timeout.  The settings
Jittor needs are :func:`shims.env.required_settings`'s, never decided again here.  The checks
belong to the tool (``jtport doctor``), not to the runtime that converted programs import.

Names, paths, archive names and MD5s below are read from Jittor 1.3.11's own source
(``jittor_utils/__init__.py``, ``jittor/compiler.py``, ``jittor/compile_extern.py``,
``jittor_utils/install_cuda.py``, ``jittor/dataset/mnist.py``).
"""
from __future__ import annotations

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
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple


from .settings import env_module

_env = env_module()  # shims/env.py: the settings these checks explain

__all__ = ["STATUSES", "Finding", "Check", "CheckContext", "CHECKS", "RUNTIME_CHECK",
           "MEMORY_EXPLANATION", "run_checks", "worst_status", "troubleshooting_markdown",
           "interpreter_info", "jittor_utils_info", "jittor_import_info", "host_reachable",
           "ONEDNN_ARCHIVES", "CUTLASS_ARCHIVE", "JTCUDA_ARCHIVES", "MSVC_CL", "DEAD_URLS",
           "check_python", "check_compiler", "check_cuda_runtime", "check_gpu", "check_cuda_driver",
           "check_onednn", "check_cutlass", "check_jittor_cache", "check_jittor_import",
           "check_numpy", "check_torch", "check_datasets", "check_runtime"]

STATUSES = ("ok", "warning", "problem")

# Jittor 1.3.11 downloads its optional pieces from here.
JITTOR_ASSETS_HOST = "cg.cs.tsinghua.edu.cn"
JITTOR_ASSETS_URL = f"https://{JITTOR_ASSETS_HOST}/jittor/assets/"
# compile_extern.py:install_mkl -- (system, machine) -> (archive, md5)
ONEDNN_ARCHIVES = {
    ("Linux", "x86_64"): ("dnnl_lnx_2.2.0_cpu_gomp.tgz", "35bbbdf550a9d8ad54db798e372000f6"),
    ("Linux", "aarch64"): ("dnnl_lnx_2.2.0_cpu_gomp_aarch64.tgz", "72cf9b0b8fd6c3c786d35a9daaee22b8"),
    ("Windows", "AMD64"): ("dnnl_win_2.2.0_cpu_vcomp.zip", "fa12c693b2ec07700d174e1e99d60a7e"),
    ("Darwin", "arm64"): ("dnnl_mac_2.2.0_cpu_omp_arm64.tgz", "d8fdf56d3cf618685d22d18f08119f88"),
    ("Darwin", "x86_64"): ("dnnl_mac_2.2.0_cpu_omp_x86_64.tgz", "6e2f065d6a589c82081536b684768fe6"),
}
# compile_extern.py:install_cutlass
CUTLASS_ARCHIVE = ("cutlass.zip", "999ecb7e217e40c497bc3d0ded6643f0")
# install_cuda.py:install_cuda (Linux): driver's CUDA version -> toolkit Jittor downloads
JTCUDA_ARCHIVES = (((12, 2), "cuda12.2_cudnn8_linux.tgz"), ((11, 2), "cuda11.2_cudnn8_linux.tgz"),
                   ((11, 0), "cuda11.0_cudnn8_linux.tgz"), ((10, 2), "cuda10.2_cudnn7_linux.tgz"),
                   ((10, 0), "cuda10.0_cudnn7_linux.tgz"))
# jittor_utils/__init__.py: the MSVC Jittor installs for itself on Windows
MSVC_CL = os.path.join("msvc", "VC", r"_\_\_\_\_\bin", "cl.exe")
# jittor 1.3.11's METADATA: Requires-Python >=3.7
MIN_PYTHON = (3, 7)


@dataclass(frozen=True)
class DeadURL:
    """A dataset download location that no longer serves the files, and where else they are."""

    dataset: str
    pattern: str
    alternatives: Tuple[str, ...]
    files: Tuple[Tuple[str, str], ...]  # (file name, md5) as jittor's loader expects them
    cache_folder: str                    # under <jittor cache>/dataset


DEAD_URLS = (
    DeadURL(
        dataset="MNIST",
        pattern="yann.lecun.com/exdb/mnist",
        alternatives=("https://storage.googleapis.com/cvdf-datasets/mnist/ "
                      "(what jittor.dataset.MNIST in Jittor 1.3.11 downloads from)",
                      "https://ossci-datasets.s3.amazonaws.com/mnist/ (torchvision's mirror)"),
        files=(("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
               ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
               ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
               ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")),
        cache_folder="mnist_data",
    ),
)
_SCANNED_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".cfg", ".ini", ".toml", ".sh", ".txt")
_SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages", "build", "dist"}

MEMORY_EXPLANATION = """\
What Jittor's memory counters mean (jt.display_memory_info(), jt.liveness_info()):
  hold_vars   Vars your Python code still references (every live jt.Var object).
  lived_vars  every Var alive in Jittor's graph, including results not computed yet:
              Jittor is lazy and runs an op only when something reads its result.
  lived_ops   operations recorded in the graph and not yet run or freed.
Typical causes of growth, step after step:
  * a lazily updated Var that is never read, such as an EMA copy of the weights updated
    with assign()/update() each step but read only when sampling: its whole update
    history stays in the graph (lived_vars/lived_ops grow, hold_vars does not; measured
    +48 vars per step, and the first read after 1000 steps compiled for 344 s).
    Fix: shims.ema_update, or jt.sync(ema_params) each step (every 10 is enough).
  * a Python list or dict keeping Vars alive (losses.append(loss)): hold_vars grows.
    Keep numbers instead: losses.append(loss.item()).
  * GPU memory "never freed" across runs: another process still holds it (see the
    processes listed by nvidia-smi), or the batch/sample size is simply too large for
    the card (a NeuS port fitted after lowering n_importance to 32).
    jt.gc() returns Jittor's cached blocks; jt.sync_all(True) runs what is pending.
A related message: "grads[i] 'name' doesn't have gradient. It will be set to zero" means that
parameter took no part in the loss being optimized (a discriminator step on detached
generator outputs reaches no generator parameter). It is harmless when intended; Jittor
prints it once per parameter name. Give each network its own optimizer over its own
parameters to avoid it."""


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

_RUNTIME_PROBE = r"""
import json
report, source = None, "shims.memory_report()"
try:
    import shims
    report = shims.memory_report()
except Exception:  # no shims, or no memory_report yet: Jittor's own counters
    source = "jt.liveness_info()"
    import jittor as jt
    report = dict(jt.liveness_info())
    report["number_of_lived_vars"] = jt.number_of_lived_vars()
if not isinstance(report, (dict, list, str, int, float)):
    report = str(report)
print("JTPORT_PROBE " + json.dumps({"source": source, "report": report}))
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
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
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


def _compiler_version(ctx: CheckContext, path: str) -> Optional[str]:
    """The compiler's version as Jittor reads it: the last X.Y.Z in ``--version``."""
    status, out = ctx.run([path, "--version"], timeout=15)
    if status != 0:
        return None
    found = re.findall(r"[0-9]+\.[0-9]+\.[0-9]+", out) or re.findall(r"[0-9]+\.[0-9]+", out)
    return found[-1] if found else None


def _nvcc_release(ctx: CheckContext, nvcc: str) -> Optional[Tuple[int, int]]:
    status, out = ctx.run([nvcc, "--version"], timeout=15)
    m = re.search(r"release (\d+)\.(\d+)", out) if status == 0 else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def _driver_cuda(ctx: CheckContext) -> Tuple[Optional[str], Optional[Tuple[int, int]], str]:
    """(nvidia-smi path, the CUDA version its driver supports, nvidia-smi's error text)."""
    smi = ctx.which("nvidia-smi")
    if not smi:
        return None, None, ""

    def probe():
        # the same query Jittor's install_cuda.get_cuda_driver makes
        status, out = ctx.run([smi, "-q", "-u"], timeout=15)
        if status != 0:
            return None, _error_line(out) or f"exit status {status}"
        m = re.search(r"cuda version\s*:\s*(\d+)\.(\d+)", out, re.I)
        return ((int(m.group(1)), int(m.group(2))) if m else None), ""
    version, error = ctx.memo("nvidia_smi", probe)
    return smi, version, error


def _jtport_setting(ctx: CheckContext, name: str):
    """The :class:`Setting` jtport itself would choose for ``name`` (ignoring the current value),
    so a value that came from jtport (``make`` exports them) is shown with its reason."""
    others = {k: v for k, v in ctx.environ.items() if k != name}
    return next((s for s in _env.required_settings(others, ctx.nvcc_fallbacks) if s.name == name), None)


def _cuda_in_use(ctx: CheckContext) -> bool:
    """True when Jittor, run the jtport way, would use CUDA."""
    return _env.find_nvcc(ctx.jittor_environ(), ctx.nvcc_fallbacks) is not None


# --------------------------------------------------------------------------- checks

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


def check_cuda_runtime(ctx: CheckContext) -> Finding:
    """nvcc present without a loadable CUDA runtime: the import-time crash and its setting."""
    explicit = ctx.environ.get("nvcc_path")
    if explicit == "":
        own = _jtport_setting(ctx, "nvcc_path")
        return Finding("cuda_runtime", "ok", "nvcc_path is empty: Jittor runs on the CPU"
                       + (f" (jtport's setting: {own.reason})" if own else ""))
    if explicit:
        if not os.path.isfile(explicit):
            return Finding("cuda_runtime", "problem", f"nvcc_path={explicit} does not exist: Jittor fails "
                           "to run it", "fix the path, or set nvcc_path= (empty) to run on the CPU")
        if not _env.cuda_runtime_loadable(explicit):
            lib = _env.cuda_runtime_candidates(explicit)[0]
            return Finding("cuda_runtime", "problem",
                           f"nvcc_path={explicit}, but the CUDA runtime Jittor loads ({lib}) or the driver "
                           "(libcuda.so.1) cannot be loaded: import jittor crashes",
                           "set nvcc_path= (empty) to run on the CPU, or install the CUDA runtime and driver")
        return Finding("cuda_runtime", "ok", f"nvcc_path={explicit} with a loadable CUDA runtime")
    nvcc = _env.find_nvcc(ctx.environ, ctx.nvcc_fallbacks)
    if nvcc is None:
        return Finding("cuda_runtime", "ok", "no nvcc found: Jittor runs on the CPU")
    setting = next((s for s in ctx.settings() if s.name == "nvcc_path"), None)
    lib = _env.cuda_runtime_candidates(nvcc)[0]
    if setting is not None:
        return Finding("cuda_runtime", "warning", f"{setting.reason} (Jittor loads {lib})",
                       "jtport sets nvcc_path= for you (make, pytest, `import shims`); running Jittor "
                       "yourself: export nvcc_path= ; for the GPU, install the CUDA runtime at that "
                       "path and the NVIDIA driver", details={"nvcc": nvcc, "libcudart": lib})
    return Finding("cuda_runtime", "ok", f"nvcc {nvcc} with its CUDA runtime {lib}: Jittor can use CUDA",
                   details={"nvcc": nvcc, "libcudart": lib})


def check_gpu(ctx: CheckContext) -> Finding:
    """An NVIDIA GPU that is present but that Jittor cannot use."""
    devices = sorted(glob.glob(os.path.join(ctx.dev_dir, "nvidia[0-9]*")))
    smi, _version, smi_error = _driver_cuda(ctx)
    if not smi and not devices:
        return Finding("gpu", "ok", "no NVIDIA GPU found: Jittor runs on the CPU")
    cpu_fix = "meanwhile nvcc_path= (empty) runs Jittor on the CPU"
    if not smi:
        return Finding("gpu", "warning", f"GPU device files ({', '.join(devices)}) but no nvidia-smi on PATH: "
                       "the NVIDIA driver's tools are missing, so the GPU cannot be checked",
                       f"install the NVIDIA driver matching the kernel module; {cpu_fix}")
    if smi_error:
        return Finding("gpu", "warning", f"a GPU is present but nvidia-smi fails: {smi_error}",
                       "the NVIDIA driver is not working: reinstall it or reboot; in a container, start it "
                       f"with GPU access (docker run --gpus all); {cpu_fix}")
    status, out = ctx.run([smi, "-L"], timeout=15)
    gpus = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("GPU ")] if status == 0 else []
    names = "; ".join(gpus) or "a GPU"
    if not _cuda_in_use(ctx):
        why = ("nvcc_path is empty" if ctx.environ.get("nvcc_path") == "" else
               "no usable CUDA toolkit/runtime (see cuda_runtime)")
        return Finding("gpu", "warning", f"{names} present, but Jittor runs on the CPU: {why}",
                       "install a CUDA toolkit whose lib64/libcudart.so sits next to its nvcc and put "
                       "that nvcc on PATH (or set nvcc_path to it)")
    return Finding("gpu", "ok", f"{names}; Jittor can use CUDA (set jt.flags.use_cuda = 1)")


def check_cuda_driver(ctx: CheckContext) -> Finding:
    """The CUDA toolkit newer than the driver supports, or a CUDA download Jittor would attempt."""
    smi, driver, _error = _driver_cuda(ctx)
    if driver is None:
        return Finding("cuda_driver", "ok", "no CUDA driver version to compare (no working nvidia-smi)")
    drv = f"{driver[0]}.{driver[1]}"
    if ctx.environ.get("nvcc_path") == "":
        return Finding("cuda_driver", "ok", f"driver supports CUDA {drv}; nvcc_path is empty (CPU)")
    nvcc = _env.find_nvcc(ctx.environ, ctx.nvcc_fallbacks)
    if nvcc is None:
        archive = next((a for v, a in JTCUDA_ARCHIVES if driver >= v), None)
        if archive is None:
            return Finding("cuda_driver", "warning", f"driver supports CUDA {drv}, older than any CUDA "
                           "Jittor can install (10.0)", "update the NVIDIA driver, or nvcc_path= for the CPU")
        target = os.path.join(ctx.cache_dir(), "jtcuda", archive[:-4], "bin", "nvcc")
        if os.path.isfile(target):
            return Finding("cuda_driver", "ok", f"driver supports CUDA {drv}; Jittor's own CUDA at {target}")
        return Finding("cuda_driver", "warning",
                       f"driver supports CUDA {drv} and no nvcc is installed: on first import Jittor "
                       f"downloads {archive} from {JITTOR_ASSETS_URL} into "
                       f"{os.path.join(ctx.cache_dir(), 'jtcuda')} (large; fails offline)",
                       "install a CUDA toolkit no newer than the driver and put its nvcc on PATH, "
                       "or set nvcc_path= (empty) to run on the CPU")
    toolkit = _nvcc_release(ctx, nvcc)
    if toolkit is None:
        return Finding("cuda_driver", "warning", f"`{nvcc} --version` printed no CUDA release; "
                       f"driver supports CUDA {drv}", "check the CUDA toolkit install")
    tk = f"{toolkit[0]}.{toolkit[1]}"
    if toolkit > driver:
        used = _cuda_in_use(ctx)
        return Finding("cuda_driver", "problem" if used else "warning",
                       f"CUDA toolkit {tk} ({nvcc}) is newer than the driver supports (CUDA {drv}): "
                       "kernels fail with 'CUDA driver version is insufficient'"
                       + ("" if used else "; jtport runs Jittor on the CPU here anyway"),
                       f"update the NVIDIA driver to one for CUDA {tk}, or install a CUDA toolkit <= {drv} "
                       "and set nvcc_path to its nvcc, or nvcc_path= (empty) for the CPU",
                       details={"toolkit": tk, "driver": drv})
    return Finding("cuda_driver", "ok", f"driver supports CUDA {drv} >= toolkit {tk}",
                   details={"toolkit": tk, "driver": drv})


def check_onednn(ctx: CheckContext) -> Finding:
    """oneDNN (``use_mkl``): on or off, and why; installable from PyPI (``jtport install-onednn``).

    With oneDNN Jittor's CPU convolutions and matmuls run at about torch's speed; without it
    10-100x slower (bench/bench_micro.py).  jtport turns ``use_mkl`` on exactly when a usable
    oneDNN is in place (``shims/onednn.py``); a ``use_mkl`` the user set wins."""
    archive = ONEDNN_ARCHIVES.get((ctx.system, ctx.machine))
    mkl_dir = os.path.join(ctx.cache_dir(), "mkl")
    onednn = _env.onednn_status(ctx.environ)
    install = "jtport install-onednn (oneDNN 2.2 from PyPI's onednn-cpu-gomp wheels, no Jittor download)"
    bad = ""
    if archive:
        path = os.path.join(mkl_dir, archive[0])
        if os.path.isfile(path) and _md5(path) != archive[1]:
            bad = (f"; {path} is a corrupt download (MD5 differs from {archive[1]}): "
                   f"delete it")
    get_it = (f"put {archive[0]} (MD5 {archive[1]}, from {JITTOR_ASSETS_URL}{archive[0]}) into {mkl_dir}"
              if archive else "")
    use_mkl = ctx.environ.get("use_mkl")
    own = _jtport_setting(ctx, "use_mkl")
    from_jtport = use_mkl is None or (own is not None and own.value == use_mkl)
    if use_mkl is not None and use_mkl != "1":  # Jittor: use_mkl = (os.environ.get("use_mkl", "1") == "1")
        if from_jtport:
            return Finding("onednn", "warning",
                           f"use_mkl={use_mkl} (jtport's setting: {own.reason}): convolutions and matmuls run "
                           "on Jittor's own CPU kernels, 10-100x slower than torch" + bad,
                           install + (f"; delete {os.path.join(mkl_dir, archive[0])}" if bad else ""))
        return Finding("onednn", "warning" if bad else "ok",
                       f"use_mkl={use_mkl} set by you: oneDNN is off, Jittor uses its own CPU kernels"
                       + (f" although {onednn.reason} (unset use_mkl to use it)" if onednn.usable else "") + bad,
                       f"delete {os.path.join(mkl_dir, archive[0])}" if bad else "")
    if onednn.usable:
        who = "jtport's setting" if from_jtport else "set by you"
        return Finding("onednn", "ok", f"use_mkl=1 ({who}): {onednn.reason}; Jittor runs convolutions "
                                       "and matmuls on it", details={"folder": onednn.folder})
    if use_mkl is None:
        setting = next((s for s in ctx.settings() if s.name == "use_mkl"), None)
        reason = setting.reason if setting else onednn.reason
        return Finding("onednn", "warning", reason + bad,
                       f"{install}; meanwhile jtport sets use_mkl=0 for you (running Jittor yourself: "
                       "export use_mkl=0)")
    offline = _package(ctx, "jittor_offline")  # Jittor copies archives from this package first
    if archive and offline:
        path = os.path.join(offline["location"], "jittor_offline", archive[0])
        if os.path.isfile(path) and _md5(path) == archive[1]:
            return Finding("onednn", "ok", f"oneDNN will be copied from the jittor_offline package ({path})")
    if ctx.can_reach(JITTOR_ASSETS_HOST):
        return Finding("onednn", "warning", f"use_mkl=1: {onednn.reason}; Jittor downloads it "
                       f"from {JITTOR_ASSETS_HOST} on first import{bad}", f"{install}, or {get_it}" if get_it else install)
    return Finding("onednn", "problem",
                   f"use_mkl=1 but {onednn.reason} and {JITTOR_ASSETS_HOST} cannot be reached: "
                   f"import jittor fails downloading it{bad}",
                   f"{install}; or export use_mkl=0 (or unset it: jtport then sets 0)")


def check_cutlass(ctx: CheckContext) -> Finding:
    """The cutlass archive in Jittor's cache with a wrong checksum (CUDA builds use it)."""
    name, md5 = CUTLASS_ARCHIVE
    folder = os.path.join(ctx.cache_dir(), "cutlass")
    archive = os.path.join(folder, name)
    unpacked = os.path.join(folder, "cutlass")
    custom = ctx.environ.get("CUTLASS_PATH")
    if custom and not os.path.isdir(custom):
        return Finding("cutlass", "problem" if _cuda_in_use(ctx) else "warning",
                       f"CUTLASS_PATH={custom} is not a folder", "point CUTLASS_PATH at an unpacked CUTLASS, or unset it")
    if os.path.isfile(archive):
        actual = _md5(archive)
        if actual != md5:
            used = _cuda_in_use(ctx)
            remove = archive + (f" and the folder {unpacked}" if os.path.isdir(unpacked) else "")
            return Finding(
                "cutlass", "problem" if used else "warning",
                f"{archive} has MD5 {actual}, not {md5}: a corrupt or truncated download (users got one "
                "straight from Jittor's server: 'MD5 mismatch between the server and the downloaded file'); "
                "Jittor cleans it up itself only when the unpacked folder exists, otherwise it stops with "
                "FileNotFoundError" + ("" if used else "; only CUDA builds use cutlass, this one runs on the CPU"),
                f"delete {remove}; then put a good {name} (MD5 {md5}) there, or set CUTLASS_PATH to an "
                "unpacked CUTLASS", details={"archive": archive, "md5": actual, "expected_md5": md5})
        return Finding("cutlass", "ok", f"{archive} has the right MD5")
    if os.path.isfile(os.path.join(unpacked, "include", "cutlass", "cutlass.h")):
        return Finding("cutlass", "ok", f"cutlass unpacked in {unpacked}")
    return Finding("cutlass", "ok", "no cutlass download in Jittor's cache (only CUDA builds fetch it)")


def check_jittor_cache(ctx: CheckContext) -> Finding:
    """Jittor's compile cache: where, how big, and whether it is built for this Python/compiler."""
    root = ctx.cache_dir()
    notes: List[str] = []
    status = "ok"
    fixes: List[str] = []
    persisted = _env.persisted_jittor_home(ctx.environ)
    if not ctx.environ.get("JITTOR_HOME") and persisted:
        notes.append(f"the location comes from a JITTOR_HOME persisted in "
                     f"{os.path.join(ctx.environ.get('HOME', '~'), '.cache', 'jittor', 'config.json')}")
    jt = _package(ctx, "jittor")
    if jt is None:
        return Finding("jittor_cache", "warning", f"Jittor is not installed for {ctx.python}; no cache to check",
                       "see jittor_import")
    size = _dir_size(root) if os.path.isdir(root) else 0
    info = jittor_utils_info(ctx)
    if "error" in info:
        return Finding("jittor_cache", "warning", f"cache {root} ({_mib(size)}); Jittor could not tell its "
                       f"cache path: {info['error']}", "see compiler and jittor_import")
    cache_path = info["cache_path"]
    rel = os.path.relpath(cache_path, root)
    built = _core_builds(cache_path)
    if built:
        notes.insert(0, f"{cache_path} ({_mib(size)} in {root}) holds Jittor's core built for this "
                        f"Python and {info['cc_type']}")
    else:
        status = "warning"
        jtv = "jt" + jt["version"].rsplit(".", 1)[0]
        others = sorted({os.path.relpath(os.path.dirname(p), root) for p in
                         glob.glob(os.path.join(root, jtv, "*", "*", "*", "*", "*", "*", "jittor_core*"))
                         if not p.endswith(".key")})
        notes.insert(0, f"no Jittor core built yet in {cache_path} ({_mib(size)} in {root}): the first "
                        "import compiles it (about 2 minutes)"
                     + (f"; builds for other Pythons/compilers/branches: {', '.join(others)}" if others else ""))
        fixes.append("run `make venvs` (or import jittor once) before timing anything"
                     + ("; delete old builds you no longer use" if others else ""))
    name = info.get("cache_name") or "default"
    if "cache_name" not in ctx.environ and name != "default":
        status = "warning"
        notes.append(f"Jittor's package sits inside a git checkout, so its cache is named after the branch "
                     f"('{name}'): every new branch compiles Jittor's core again")
        fixes.append("export cache_name=default to share one cache across branches")
    return Finding("jittor_cache", status, "; ".join(notes), "; ".join(fixes),
                   details={"root": root, "cache_path": cache_path, "relative": rel, "bytes": size,
                            "core_built": bool(built), "cache_name": name})


def check_jittor_import(ctx: CheckContext) -> Finding:
    """``import jittor`` in a subprocess (with a timeout and jtport's settings), and one kernel."""
    if _package(ctx, "jittor") is None:
        return Finding("jittor_import", "problem", f"Jittor is not installed for {ctx.python}",
                       'pip install "jittor==1.3.11.0" in that virtualenv (make venvs does it)')
    jt_env = ctx.jittor_environ()
    settings = " ".join(f"{k}={jt_env[k]!r}" for k in ("nvcc_path", "use_mkl") if k in jt_env) or "none"
    res = jittor_import_info(ctx)
    if res.get("timed_out"):
        cache = jittor_utils_info(ctx)
        cold = "error" not in cache and not _core_builds(cache["cache_path"])
        if cold:
            return Finding("jittor_import", "warning", f"import jittor did not finish within {ctx.timeout:g} s: "
                           "it is compiling its core for the first time (about 2 minutes)",
                           "let one import finish (make venvs), then run doctor again")
        return Finding("jittor_import", "problem", f"import jittor did not finish within {ctx.timeout:g} s "
                       "although its core is built: it hangs (often a download that cannot connect)",
                       "run `python -c 'import jittor'` to see where it stops; offline: export use_mkl=0 nvcc_path=")
    if "error" in res:
        out = res.get("output", "")
        fix = "read the error above; rerun doctor after fixing"
        hints = (("libcudart", "export nvcc_path= (empty) to run on the CPU"),
                 ("MD5 mismatch", "a corrupt download in Jittor's cache: see the cutlass and onednn lines"),
                 ("Download File failed", "Jittor tried to download: export use_mkl=0 nvcc_path= to stay offline"),
                 ("Unknown cc type", "set cc_path to the full path of g++ or clang++"),
                 ('Run cmd failed: ""', "unset cc_path, or set it to the full path of g++ or clang++"),
                 ("numpy", 'pip install "numpy<2" in this virtualenv; keep torch in its own virtualenv'))
        for needle, hint in hints:
            if needle in out:
                fix = hint
                break
        return Finding("jittor_import", "problem", f"import jittor fails (settings: {settings}): {res['error']}",
                       fix, details={"output_tail": out[-2000:]})
    kernel = "a test kernel ran" if res.get("kernel_ok") else "but a test kernel gave a wrong value"
    return Finding("jittor_import", "ok" if res.get("kernel_ok") else "problem",
                   f"jittor {res['version']} imports in {res['seconds']:.1f} s (settings: {settings}); {kernel}",
                   "" if res.get("kernel_ok") else "clear Jittor's cache folder for this build and retry",
                   details={k: res[k] for k in ("version", "cache_path", "has_cuda", "numpy", "seconds")})


def check_numpy(ctx: CheckContext) -> Finding:
    """numpy: the version Jittor requires, and whether it changed after Jittor's core was built."""
    np_ = _package(ctx, "numpy")
    if np_ is None:
        return Finding("numpy", "problem", f"numpy is not installed for {ctx.python}: Jittor needs it",
                       'pip install "numpy<2"')
    jt = _package(ctx, "jittor")
    spec = _requirement(jt["requires"], "numpy") if jt else None
    separate = ("install torch only in its own virtualenv (make venvs builds .venv for Jittor and "
                ".venv-torch for torch)")
    if spec and not _satisfies(np_["version"], spec):
        return Finding("numpy", "problem",
                       f"numpy {np_['version']} is installed but Jittor {jt['version']} requires numpy{spec} "
                       "(a torch install is the usual way it gets replaced)",
                       f'pip install "numpy{spec}" in this virtualenv; {separate}',
                       details={"numpy": np_["version"], "required": spec})
    info = jittor_utils_info(ctx) if jt else {"error": "no jittor"}
    builds = _core_builds(info["cache_path"]) if "error" not in info else []
    required = f" (Jittor requires numpy{spec})" if spec else ""
    if builds and np_.get("installed_at"):
        built_at = os.path.getmtime(builds[0])
        if np_["installed_at"] > built_at:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(np_["installed_at"]))
            built = time.strftime("%Y-%m-%d %H:%M", time.localtime(built_at))
            return Finding("numpy", "warning",
                           f"numpy {np_['version']}{required} was installed at {when}, after Jittor's core was "
                           f"compiled ({built}): something replaced numpy under Jittor (a torch install does); "
                           "a user's labels lagged one batch behind after that",
                           f"if results look shifted, recreate the virtualenv (make venvs); {separate}",
                           details={"numpy": np_["version"], "required": spec})
    return Finding("numpy", "ok", f"numpy {np_['version']}{required}"
                   + (", unchanged since Jittor's core was compiled" if builds else ""),
                   details={"numpy": np_["version"], "required": spec})


def check_torch(ctx: CheckContext) -> Finding:
    """torch installed in the same environment as Jittor."""
    torch = _package(ctx, "torch")
    if torch is None:
        return Finding("torch", "ok", "torch is not installed next to Jittor (it belongs in .venv-torch)")
    prefix = interpreter_info(ctx).get("prefix", ctx.python)
    return Finding("torch", "warning",
                   f"torch {torch['version']} is installed in the same environment as Jittor ({prefix}): a "
                   "torch install can replace the numpy Jittor runs with (a user's labels then lagged one "
                   "batch behind), and jtport never imports torch next to Jittor",
                   "pip uninstall torch torchvision here and use the separate virtualenv layout "
                   "(make venvs: .venv for Jittor, .venv-torch for torch; they exchange .npz files)",
                   details={"torch": torch["version"], "prefix": prefix})


def _scan_project(project: str, patterns: Sequence[str]) -> List[Tuple[str, int, str]]:
    """(file, line, pattern) for every known-dead URL in the project's text files."""
    hits = []
    for root, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                         and not os.path.isfile(os.path.join(root, d, "pyvenv.cfg")))
        for name in sorted(files):
            if not name.endswith(_SCANNED_SUFFIXES):
                continue
            path = os.path.join(root, name)
            try:
                if os.path.getsize(path) > 2 * 2**20:
                    continue
                with open(path, encoding="utf8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        for pattern in patterns:
                            if pattern in line:
                                hits.append((path, lineno, pattern))
            except OSError:
                continue
    return hits


def check_datasets(ctx: CheckContext) -> Finding:
    """Dataset URLs known to be dead that the user's code or Jittor's dataset cache relies on."""
    messages: List[str] = []
    fixes: List[str] = []
    if ctx.project and not os.path.isdir(ctx.project):
        return Finding("datasets", "problem", f"--project {ctx.project} is not a folder", "pass your code's folder")
    hits = _scan_project(ctx.project, [d.pattern for d in DEAD_URLS]) if ctx.project else []
    for dead in DEAD_URLS:
        where = [f"{os.path.relpath(p, ctx.project)}:{n}" for p, n, pat in hits if pat == dead.pattern]
        cached = os.path.join(ctx.cache_dir(), "dataset", dead.cache_folder)
        incomplete = []
        if os.path.isdir(cached):
            for fname, md5 in dead.files:
                path = os.path.join(cached, fname)
                if not os.path.isfile(path) or _md5(path) != md5:
                    incomplete.append(fname)
        if not where and not incomplete:
            continue
        if where:
            messages.append(f"your code downloads {dead.dataset} from {dead.pattern}, which is gone "
                            f"(HTTP 404): {', '.join(where[:5])}{' ...' if len(where) > 5 else ''}")
        if incomplete:
            messages.append(f"{cached} lacks good copies of {', '.join(incomplete)} (an earlier download "
                            "failed), so Jittor downloads them again")
        fixes.append(f"get the {dead.dataset} files from " + " or ".join(dead.alternatives)
                     + f", or copy them (e.g. a torchvision {dead.dataset}/raw folder) into the data folder "
                       "and pass download=False")
    if not messages:
        scope = f"in {ctx.project} nor" if ctx.project else "(pass --project DIR to scan your code) in"
        return Finding("datasets", "ok", f"no known-dead dataset URL {scope} Jittor's dataset cache")
    return Finding("datasets", "warning", "; ".join(messages), "; ".join(fixes))


def _host_memory(ctx: CheckContext) -> str:
    try:
        with open(ctx.meminfo) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        total = int(fields["MemTotal"].split()[0]) / 2**20
        avail = int(fields["MemAvailable"].split()[0]) / 2**20
        return f"host memory {avail:.1f} GiB free of {total:.1f} GiB"
    except (OSError, KeyError, ValueError):
        return "host memory unknown"


def check_runtime(ctx: CheckContext) -> Finding:
    """Device memory, who holds GPU memory, and Jittor's own counters (``--runtime`` only)."""
    parts = [_host_memory(ctx)]
    status, fix = "ok", ""
    details: Dict[str, Any] = {"explanation": MEMORY_EXPLANATION}
    smi = ctx.which("nvidia-smi")
    if smi:
        rc, out = ctx.run([smi, "--query-gpu=index,name,memory.used,memory.total",
                           "--format=csv,noheader,nounits"], timeout=15)
        if rc == 0:
            for line in out.splitlines():
                cells = [c.strip() for c in line.split(",")]
                if len(cells) == 4:
                    parts.append(f"GPU {cells[0]} ({cells[1]}) {cells[2]} of {cells[3]} MiB used")
        rc, out = ctx.run([smi, "--query-compute-apps=pid,process_name,used_memory",
                           "--format=csv,noheader,nounits"], timeout=15)
        holders = []
        if rc == 0:
            for line in out.splitlines():
                cells = [c.strip() for c in line.split(",")]
                if len(cells) == 3 and cells[0].isdigit():
                    holders.append(f"pid {cells[0]} ({cells[1]}, {cells[2]} MiB)")
        if holders:
            status = "warning"
            parts.append("GPU memory held by running processes: " + ", ".join(holders))
            fix = ("GPU memory 'not freed' is usually one of these processes still running: end it "
                   "(kill PID) if it is a finished or stuck run")
    if _package(ctx, "jittor") is not None:
        timeout = ctx.timeout
        res = _parse_probe(*ctx.run([ctx.python, "-c", _RUNTIME_PROBE], timeout, ctx.jittor_environ()), timeout)
        if "error" in res:
            parts.append(f"Jittor's counters unavailable: {res['error']}")
        else:
            report = res["report"]
            shown = (", ".join(f"{k}={v}" for k, v in report.items()) if isinstance(report, dict)
                     else " ".join(str(report).split()).rstrip(". "))
            parts.append(f"{res['source']} in a fresh process: {shown}")
            details["report"] = report
    parts.append("in your own code call shims.memory_report() between steps; the counters are explained "
                 "below")
    return Finding("runtime", status, "; ".join(parts), fix, details=details)


CHECKS: Tuple[Check, ...] = (
    Check("python", "Python and OS",
          "Jittor 1.3.11 needs Python 3.7 or newer on Linux, macOS or Windows. doctor probes the "
          "interpreter you will run (`--python`, default: the one running jtport).", check_python),
    Check("compiler", "C++ compiler (and MSVC on Windows)",
          "Jittor compiles every kernel with g++ (clang++ on macOS), or the compiler in `cc_path`; "
          "without one, nothing runs. Install g++ (`apt install g++`), or `export cc_path=/path/to/clang++`. "
          "`cc_path=` set but empty stops Jittor ('Run cmd failed: \"\" --version'). On Windows Jittor downloads its own "
          "MSVC, and users hit `...\\msvc\\VC\\\\\\bin\\cl.exe` failing to run (Jittor issue #631); "
          "downgrading Jittor did not help, running under WSL2 or Linux did.", check_compiler),
    Check("cuda_runtime", "nvcc without a CUDA runtime",
          "If `nvcc` is installed (on PATH or in /usr/local/cuda) but the CUDA runtime Jittor loads next "
          "to it (`<nvcc dir>/../lib64/libcudart.so`) or the driver cannot be loaded, `import jittor` "
          "crashes on `libcudart.so`. `nvcc_path=` (empty) makes Jittor run on the CPU; jtport sets it for "
          "you (`make`, pytest, `import shims`); running Jittor yourself, `export nvcc_path=`.",
          check_cuda_runtime),
    Check("gpu", "GPU present but unusable",
          "An NVIDIA GPU whose driver does not work (nvidia-smi fails; in a container started without "
          "GPU access), or that Jittor cannot reach because no CUDA toolkit/runtime is usable, leaves "
          "Jittor on the CPU. Fix the driver (or `docker run --gpus all`), install a CUDA toolkit with "
          "`lib64/libcudart.so` next to its nvcc; meanwhile `nvcc_path=` runs on the CPU.", check_gpu),
    Check("cuda_driver", "CUDA driver/toolkit mismatch",
          "A CUDA toolkit (nvcc) newer than the CUDA version the driver supports (nvidia-smi's 'CUDA "
          "Version') fails with 'CUDA driver version is insufficient': update the driver, or point "
          "`nvcc_path` at an older toolkit. With a driver but no nvcc at all, Jittor downloads a CUDA "
          "toolkit (`cuda12.2_cudnn8_linux.tgz`, ...) from cg.cs.tsinghua.edu.cn on first import, which "
          "fails offline: install a toolkit, or `nvcc_path=` for the CPU.", check_cuda_driver),
    Check("onednn", "oneDNN (use_mkl): torch's CPU speed",
          "With oneDNN, Jittor runs CPU convolutions and matmuls at about torch's speed; without it "
          "(`use_mkl=0`) on its own kernels, 10-100x slower (`bench/bench_micro.py`). Jittor downloads "
          "oneDNN (`dnnl_lnx_2.2.0_cpu_gomp.tgz`) from its own server on first import, which fails "
          "offline. `jtport install-onednn` installs the same oneDNN 2.2 from PyPI's "
          "`onednn-cpu-gomp`/`onednn-devel-cpu-gomp` 2021.2.0 wheels into "
          "`~/.cache/jittor/mkl/dnnl_lnx_2.2.0_cpu_gomp` (`make venvs` runs it); jtport then sets "
          "`use_mkl=1`, otherwise `use_mkl=0`. A `use_mkl` you set wins. A corrupt archive left "
          "there is re-downloaded: delete it.", check_onednn),
    Check("cutlass", "cutlass archive with a wrong checksum",
          "CUDA builds of Jittor download `~/.cache/jittor/cutlass/cutlass.zip`; users got a corrupt file "
          "straight from the server ('MD5 mismatch between the server and the downloaded file'). Delete "
          "`cutlass.zip` (and the `cutlass/` folder next to it), then put a good copy there (MD5 "
          "999ecb7e217e40c497bc3d0ded6643f0) or set `CUTLASS_PATH` to an unpacked CUTLASS.", check_cutlass),
    Check("jittor_cache", "Jittor's compile cache",
          "Jittor compiles its core once per Jittor version, compiler, Python, OS, CPU and cache name "
          "into `~/.cache/jittor/jt1.3.11/...` (about 2 minutes), then about 1 s per new kernel. A new "
          "Python or compiler starts a new build; old builds can be deleted. A `JITTOR_HOME` set once is "
          "remembered in `~/.cache/jittor/config.json`. When Jittor's package sits inside a git checkout "
          "(a virtualenv in your project), the cache is named after the branch and every new branch "
          "compiles again: `export cache_name=default`.", check_jittor_cache),
    Check("jittor_import", "Jittor imports",
          "doctor imports Jittor in a separate process with a timeout, using jtport's settings, and runs "
          "one kernel. A failure shows Jittor's own error line with the matching fix.",
          check_jittor_import),
    Check("numpy", "numpy version",
          "Jittor 1.3.11 requires `numpy<2.0`. Installing torch into the same environment can replace "
          "numpy under Jittor; a user's labels then lagged one batch behind. doctor compares the "
          "installed numpy with Jittor's requirement and with the time Jittor's core was compiled. "
          "Fix: `pip install \"numpy<2\"`, or recreate the virtualenv (`make venvs`).", check_numpy),
    Check("torch", "torch in the same environment",
          "jtport keeps torch out of Jittor's environment: `make venvs` builds `.venv` (Jittor) and "
          "`.venv-torch` (torch), which exchange `.npz` files. torch installed next to Jittor is reported "
          "with that layout as the fix.", check_torch),
    Check("datasets", "Dead dataset URLs",
          "MNIST's original host (yann.lecun.com/exdb/mnist) is gone (HTTP 404). doctor looks for it in "
          "your code (`--project DIR`) and for incomplete downloads in Jittor's dataset cache, and names "
          "mirrors: https://storage.googleapis.com/cvdf-datasets/mnist/ (Jittor 1.3.11's own MNIST uses "
          "it), https://ossci-datasets.s3.amazonaws.com/mnist/, or copy the files and pass "
          "`download=False`.", check_datasets),
)

RUNTIME_CHECK = Check(
    "runtime", "Memory at run time (--runtime)",
    "`jtport doctor --runtime` (or `shims.memory_report()` in your code) shows device memory, which "
    "processes hold GPU memory, and Jittor's counters: `hold_vars` (Vars your code references), "
    "`lived_vars` (all Vars in the lazy graph, computed or not), `lived_ops` (recorded operations). "
    "Growth step after step usually means an EMA copy updated lazily and never read (use "
    "`shims.ema_update` or `jt.sync` it each step) or a Python list keeping Vars alive "
    "(`losses.append(loss.item())`). GPU memory 'never freed' is usually another process still "
    "running, or a batch/sample size too large for the card. The warning \"grads[i] 'name' doesn't "
    "have gradient. It will be set to zero\" means that parameter took no part in the loss (a "
    "discriminator step on detached generator outputs); it is harmless when intended: give each "
    "network its own optimizer over its own parameters.", check_runtime)


def worst_status(findings: Sequence[Finding]) -> str:
    """The most severe status among ``findings`` (``ok`` when empty)."""
    return max((f.status for f in findings), key=STATUSES.index, default="ok")


def run_checks(ctx: Optional[CheckContext] = None, runtime: bool = False,
               checks: Optional[Sequence[Check]] = None) -> List[Finding]:
    """Run every check (plus the runtime one when asked) and return their findings in order.

    A check that raises becomes a ``problem`` finding naming the exception, so one broken
    probe never hides the others.
    """
    ctx = ctx or CheckContext()
    selected = list(checks if checks is not None else CHECKS) + ([RUNTIME_CHECK] if runtime else [])
    findings = []
    for check in selected:
        try:
            finding = check.run(ctx)
        except Exception as e:  # noqa: BLE001 -- reported, not swallowed
            finding = Finding(check.name, "problem", f"the check itself failed: {type(e).__name__}: {e}",
                              "please report this with the output of jtport doctor --json")
        findings.append(finding)
    return findings


def troubleshooting_markdown() -> str:
    """The README's Troubleshooting section, generated from the checks' own descriptions."""
    lines = ["## Troubleshooting", "",
             "`jtport doctor` checks the environment in a few seconds and prints one line per check "
             "(ok / warning / problem) with the fix; `--json` for machines, `--runtime` for memory. It "
             "exits non-zero when a problem would stop Jittor. What it checks:", ""]
    for check in (*CHECKS, RUNTIME_CHECK):
        lines += [f"### {check.title}", "", check.description, ""]
    return "\n".join(lines).rstrip() + "\n"
