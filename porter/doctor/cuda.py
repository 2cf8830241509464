"""CUDA: nvcc and its runtime, the GPU and its driver, what a CUDA build of Jittor needs beyond them
(a toolkit its core compiles against, no download at import, cuDNN), and the cutlass archive."""
from __future__ import annotations

import glob
import os
import re
from typing import Optional, Tuple

from porter.machine import cuda_extras

from .base import JITTOR_ASSETS_URL, CheckContext, Finding, _env, _error_line, _jtport_setting, _md5

# compile_extern.py:install_cutlass
CUTLASS_ARCHIVE = ("cutlass.zip", "999ecb7e217e40c497bc3d0ded6643f0")
# install_cuda.py:install_cuda (Linux): driver's CUDA version -> toolkit Jittor downloads
JTCUDA_ARCHIVES = (((12, 2), "cuda12.2_cudnn8_linux.tgz"), ((11, 2), "cuda11.2_cudnn8_linux.tgz"),
                   ((11, 0), "cuda11.0_cudnn8_linux.tgz"), ((10, 2), "cuda10.2_cudnn7_linux.tgz"),
                   ((10, 0), "cuda10.0_cudnn7_linux.tgz"))


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


def _cuda_in_use(ctx: CheckContext) -> bool:
    """True when Jittor, run the jtport way, would use CUDA."""
    return _env.find_nvcc(ctx.jittor_environ(), ctx.nvcc_fallbacks) is not None


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
    if setting is not None and not _env.cuda_runtime_loadable(nvcc):
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


def check_cutlass(ctx: CheckContext) -> Finding:
    """The cutlass archive in Jittor's cache with a wrong checksum (CUDA builds use it)."""
    name, md5 = CUTLASS_ARCHIVE
    folder = os.path.join(ctx.cache_dir(), "cutlass")
    archive = os.path.join(folder, name)
    unpacked = os.path.join(folder, "cutlass")
    custom = ctx.environ.get("CUTLASS_PATH")
    if custom and not os.path.isdir(custom):
        return Finding("cutlass", "problem" if _cuda_in_use(ctx) else "warning",
                       f"CUTLASS_PATH={custom} is not a folder",
                       "point CUTLASS_PATH at an unpacked CUTLASS, or unset it")
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


def check_cuda_build(ctx: CheckContext) -> Finding:
    """What Jittor's CUDA build needs beyond nvcc and its runtime (:mod:`porter.machine.cuda_extras`): a
    toolkit its core compiles against (not CUDA 13 unpatched), no library download at import,
    cuDNN it can load.  jtport's settings for them (``porter.machine.env.cuda_settings``) are shown."""
    nvcc = _env.find_nvcc(ctx.environ, ctx.nvcc_fallbacks)
    if nvcc is None or (not ctx.environ.get("nvcc_path") and not _env.cuda_runtime_loadable(nvcc)):
        return Finding("cuda_build", "ok", "Jittor runs on the CPU here: no CUDA build")
    extras = cuda_extras
    header = extras.cuda13_breakage(nvcc, extras.jittor_source_dir())
    if header is not None:
        patch = extras.CUDA13_PATCH.format(path=header)
        if ctx.environ.get("nvcc_path"):
            return Finding("cuda_build", "problem",
                           f"nvcc_path={nvcc} is CUDA >= 13, and Jittor 1.3.11's {header} reads cudaDeviceProp "
                           "fields CUDA 13 removed: import jittor fails compiling its core",
                           f"{patch} (measured: Jittor then builds and runs on CUDA 13.0), or point nvcc_path "
                           "at a CUDA <= 12 toolkit, or nvcc_path= (empty) for the CPU", details={"header": header})
        return Finding("cuda_build", "warning",
                       f"{nvcc} is CUDA >= 13, which Jittor 1.3.11's {header} does not compile against: "
                       "jtport sets nvcc_path= so Jittor runs on the CPU",
                       f"for the GPU: {patch} (measured: Jittor then builds and runs on CUDA 13.0)",
                       details={"header": header})
    names = [d.setting for d in extras.DOWNLOADS] + ["conv_opt"]
    own = [s for s in ctx.settings() if s.name in names]
    forced = [d for d in extras.missing_downloads(ctx.cache_dir(), ctx.environ)
              if ctx.environ.get(d.setting, "1") == "1"]
    if forced and not own:
        return Finding("cuda_build", "problem",
                       "Jittor's CUDA build will download " + ", ".join(d.folder for d in forced)
                       + f" into {ctx.cache_dir()} on first import (" + ", ".join(f"{d.setting}=1" for d in forced)
                       + " set by you); offline, the import fails",
                       "put the archives in that folder, or unset those variables (jtport then turns them off)")
    if own:
        return Finding("cuda_build", "warning",
                       "jtport's settings for Jittor's CUDA build: "
                       + "; ".join(f"{s.name}={s.value} ({s.reason})" for s in own),
                       "nothing to do for Jittor to import; to get those libraries, put their archives in "
                       f"{ctx.cache_dir()} (or set the variable to 1 where online), install cuDNN 8's "
                       "development files for conv_opt", details={s.name: s.value for s in own})
    return Finding("cuda_build", "ok", "Jittor's CUDA build finds its libraries: nothing to download, cuDNN loads")
