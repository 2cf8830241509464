"""Jittor's own installation: oneDNN (``use_mkl``), its compile cache, its import, and the numpy
and torch installed next to it."""
from __future__ import annotations

import glob
import os
import time
from typing import List

from .base import (JITTOR_ASSETS_HOST, JITTOR_ASSETS_URL, CheckContext, Finding, _core_builds, _dir_size,
                   _env, _jtport_setting, _md5, _mib, _package, _requirement, _satisfies, interpreter_info,
                   jittor_import_info, jittor_utils_info)

# compile_extern.py:install_mkl -- (system, machine) -> (archive, md5)
ONEDNN_ARCHIVES = {
    ("Linux", "x86_64"): ("dnnl_lnx_2.2.0_cpu_gomp.tgz", "35bbbdf550a9d8ad54db798e372000f6"),
    ("Linux", "aarch64"): ("dnnl_lnx_2.2.0_cpu_gomp_aarch64.tgz", "72cf9b0b8fd6c3c786d35a9daaee22b8"),
    ("Windows", "AMD64"): ("dnnl_win_2.2.0_cpu_vcomp.zip", "fa12c693b2ec07700d174e1e99d60a7e"),
    ("Darwin", "arm64"): ("dnnl_mac_2.2.0_cpu_omp_arm64.tgz", "d8fdf56d3cf618685d22d18f08119f88"),
    ("Darwin", "x86_64"): ("dnnl_mac_2.2.0_cpu_omp_x86_64.tgz", "6e2f065d6a589c82081536b684768fe6"),
}


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
                       f"from {JITTOR_ASSETS_HOST} on first import{bad}",
                       f"{install}, or {get_it}" if get_it else install)
    return Finding("onednn", "problem",
                   f"use_mkl=1 but {onednn.reason} and {JITTOR_ASSETS_HOST} cannot be reached: "
                   f"import jittor fails downloading it{bad}",
                   f"{install}; or export use_mkl=0 (or unset it: jtport then sets 0)")


def check_arithmetic(ctx: CheckContext) -> Finding:
    """IEEE arithmetic (jtport's default, kernels at ``-O2``) or Jittor's fast math (``-Ofast``).

    Under ``-Ofast`` Jittor's kernels assume finite values and divide by reciprocals: ``1/0`` is NaN,
    ``2/1`` is 1.9999999 and ``isinf`` never fires, so guards such as ``isfinite(loss)`` or
    ``nan_to_num`` compute something else than in torch."""
    cc_flags = ctx.environ.get("cc_flags")
    fast = ctx.environ.get("JTPORT_FAST_MATH", "0") == "1"
    if cc_flags is None and not fast:
        own = _jtport_setting(ctx, "cc_flags")
        kernel = ctx.environ.get("kernel_flags", _jtport_setting(ctx, "kernel_flags").value)
        return Finding("arithmetic", "ok", f"IEEE arithmetic: jtport sets cc_flags={own.value} (Jittor's kernels "
                                           "without -Ofast): division, infinities and NaNs as in torch; "
                                           f"kernel_flags={kernel!r} (vectorisation that keeps IEEE results)")
    if cc_flags is not None and " -O" in f" {cc_flags}" and not fast:
        who = "jtport's setting" if cc_flags == _env.IEEE_CC_FLAGS else "set by you"
        return Finding("arithmetic", "ok", f"IEEE arithmetic: cc_flags={cc_flags} ({who}) names an optimisation "
                                           "level, so Jittor compiles its kernels without -Ofast")
    why = "JTPORT_FAST_MATH=1" if fast else f"cc_flags={cc_flags!r} names no -O level"
    return Finding("arithmetic", "warning",
                   f"fast math ({why}): Jittor compiles its kernels with -Ofast; 1/0 is NaN, 2/1 is 1.9999999 "
                   "and isinf never fires, unlike torch",
                   "unset JTPORT_FAST_MATH (and cc_flags) for IEEE arithmetic, or accept results that differ "
                   "from torch wherever a value is infinite, NaN or a quotient")


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
                       f"cache path: {info['error']}", "see home, compiler and jittor_import")
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
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        busy = load >= (os.cpu_count() or 1)
        return Finding("jittor_import", "warning" if busy else "problem",
                       f"import jittor did not finish within {ctx.timeout:g} s although its core is built"
                       + (f"; the machine is busy (load {load:.1f} on {os.cpu_count()} cores), which slows "
                          "a Jittor import that compiles kernels" if busy else
                          ": it is waiting on something (often a download that cannot connect)"),
                       ("run doctor again when the machine is idle" if busy else
                        "run `python -c 'import jittor'` to see where it stops; offline: export use_mkl=0 nvcc_path="))
    if "error" in res:
        out = res.get("output", "")
        fix = "read the error above; rerun doctor after fixing"
        hints = (("libcudart", "export nvcc_path= (empty) to run on the CPU"),
                 ("Permission denied", "a folder Jittor writes is not writable: see the home line"),
                 ("Read-only file system", "a folder Jittor writes is not writable: see the home line"),
                 ("Not a directory", "a folder Jittor writes is not a folder: see the home line"),
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
