"""The checks behind ``jtport doctor``, in the order they run and are documented.

The checks themselves live by area: :mod:`.toolchain` (Python, compiler, home folder, MPI),
:mod:`.cuda`, :mod:`.jittor_env` (oneDNN, compile cache, import, numpy, torch), :mod:`.data`
(dead dataset URLs) and :mod:`.runtime` (memory, ``--runtime``); what they share is in
:mod:`.base`.  This module registers them (:data:`CHECKS`), runs them (:func:`run_checks`) and
generates docs/troubleshooting.md from their descriptions.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from .base import (JITTOR_ASSETS_HOST, JITTOR_ASSETS_URL, MSVC_CL, STATUSES, Check, CheckContext, Finding,
                   host_reachable, interpreter_info, jittor_import_info, jittor_utils_info, worst_status)
from .cuda import (CUTLASS_ARCHIVE, JTCUDA_ARCHIVES, check_cuda_build, check_cuda_driver, check_cuda_runtime,
                   check_cutlass, check_gpu)
from .data import DEAD_URLS, check_datasets
from .jittor_env import (ONEDNN_ARCHIVES, check_arithmetic, check_jittor_cache, check_jittor_import, check_numpy,
                         check_onednn, check_torch)
from .runtime import MEMORY_EXPLANATION, check_runtime
from .toolchain import check_compiler, check_home, check_mpi, check_python

__all__ = ["STATUSES", "Finding", "Check", "CheckContext", "CHECKS", "RUNTIME_CHECK",
           "MEMORY_EXPLANATION", "run_checks", "worst_status", "troubleshooting_markdown",
           "interpreter_info", "jittor_utils_info", "jittor_import_info", "host_reachable",
           "ONEDNN_ARCHIVES", "CUTLASS_ARCHIVE", "JTCUDA_ARCHIVES", "MSVC_CL", "DEAD_URLS",
           "JITTOR_ASSETS_HOST", "JITTOR_ASSETS_URL",
           "check_python", "check_compiler", "check_cuda_runtime", "check_gpu", "check_cuda_driver",
           "check_onednn", "check_arithmetic", "check_cuda_build", "check_cutlass", "check_jittor_cache",
           "check_jittor_import",
           "check_numpy", "check_torch", "check_datasets", "check_runtime", "check_home", "check_mpi"]


CHECKS: Tuple[Check, ...] = (
    Check("python", "Python and OS",
          "Jittor 1.3.11 needs Python 3.7 or newer on Linux, macOS or Windows. doctor probes the "
          "interpreter you will run (`--python`, default: the one running jtport).", check_python),
    Check("compiler", "C++ compiler (and MSVC on Windows)",
          "Jittor compiles every kernel with g++ (clang++ on macOS), or the compiler in `cc_path`; "
          "without one, nothing runs. Install g++ (`apt install g++`), or "
          "`export cc_path=/path/to/clang++`. `cc_path=` set but empty stops Jittor "
          "('Run cmd failed: \"\" --version'). On Windows Jittor downloads its own MSVC, and users "
          "hit `...\\msvc\\VC\\\\\\bin\\cl.exe` failing to run (Jittor issue #631); "
          "downgrading Jittor did not help, running under WSL2 or Linux did.", check_compiler),
    Check("home", "A home folder Jittor can write",
          "`import jittor` creates `$HOME/.cache/jittor` (its settings, `config.json`) and its compile cache "
          "(`$HOME/.cache/jittor`, or under `JITTOR_HOME`); with a read-only or missing home (a container "
          "user without one, a read-only mount) it stops with an OSError. Fix: `export HOME=` a folder you "
          "can write (`JITTOR_HOME` alone does not help: Jittor still writes `$HOME/.cache/jittor/config.json`).",
          check_home),
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
    Check("cuda_build", "What Jittor's CUDA build needs beyond nvcc",
          "Measured on an H200 with CUDA 13.0, offline: (1) Jittor 1.3.11's `extern/cuda/inc/helper_cuda.h` "
          "reads `cudaDeviceProp.computeMode` and `.clockRate`, which CUDA 13 removed, so its core does not "
          "compile; jtport then runs Jittor on the CPU (`nvcc_path=`), and doctor prints the one-line `sed` "
          "that fixes the header (Jittor then built and ran on the GPU). (2) On first import the CUDA "
          "build downloads cuTT, CUTLASS and, with MPI, NCCL; offline that fails, so jtport sets "
          "`use_cutt=0`/`use_cutlass=0`/`use_nccl=0` for those not in `~/.cache/jittor`. (3) Any CUDA "
          "library Jittor cannot load stops its import; it needs cuDNN 8's development files (cuDNN 9 has "
          "none of the libraries it loads), so without them jtport sets `conv_opt=1` (cublas and curand "
          "only: Jittor's own convolution kernels, no FFT or sparse ops). Variables you set win.",
          check_cuda_build),
    Check("onednn", "oneDNN (use_mkl): torch's CPU speed",
          "With oneDNN, Jittor runs CPU convolutions and matmuls at about torch's speed; without it "
          "(`use_mkl=0`) on its own kernels, 10-100x slower (`bench/bench_micro.py`). Jittor downloads "
          "oneDNN (`dnnl_lnx_2.2.0_cpu_gomp.tgz`) from its own server on first import, which fails "
          "offline. `jtport install-onednn` installs the same oneDNN 2.2 from PyPI's "
          "`onednn-cpu-gomp`/`onednn-devel-cpu-gomp` 2021.2.0 wheels into "
          "`~/.cache/jittor/mkl/dnnl_lnx_2.2.0_cpu_gomp` (`make venvs` runs it); jtport then sets "
          "`use_mkl=1`, otherwise `use_mkl=0`. A `use_mkl` you set wins. A corrupt archive left "
          "there is re-downloaded: delete it.", check_onednn),
    Check("arithmetic", "IEEE arithmetic or fast math",
          "Jittor compiles its kernels with `-Ofast` unless `cc_flags` names an optimisation level: then "
          "`1/0` is NaN, `2/1` is 1.9999999, `isinf` never fires and guards such as `isfinite(loss)` or "
          "`nan_to_num` compute something else than in torch. jtport sets `cc_flags=-O2` (IEEE arithmetic) "
          "and `kernel_flags=-O3 -fno-math-errno -fno-trapping-math -D__FAST_MATH__` (vectorisation that keeps "
          "IEEE results), in a Jittor cache of its own (`cache_name=jtport_ieee_vec`); `JTPORT_FAST_MATH=1` "
          "keeps Jittor's `-Ofast` (in `cache_name=jtport_fast`; its cost: `bench/bench_arithmetic.py`).",
          check_arithmetic),
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
    Check("mpi", "OpenMPI for distributed runs",
          "Jittor's distributed (multi-process) training runs under `mpirun` and builds its MPI ops with "
          "OpenMPI's `mpicc` when it finds one; without them everything else works on one process. "
          "Distributed runs need: `apt-get install openmpi-bin libopenmpi-dev`. An `mpicc` that is not "
          "OpenMPI's (no `--showme`) stops `import jittor`: install OpenMPI or `export use_mpi=0`.", check_mpi),
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
    """docs/troubleshooting.md's block, generated from the checks' own descriptions."""
    lines = ["## Troubleshooting", "",
             "`jtport doctor` checks the environment in a few seconds and prints one line per check "
             "(ok / warning / problem) with the fix; `--json` for machines, `--runtime` for memory. It "
             "exits non-zero when a problem would stop Jittor. What it checks:", ""]
    for check in (*CHECKS, RUNTIME_CHECK):
        lines += [f"### {check.title}", "", check.description, ""]
    return "\n".join(lines).rstrip() + "\n"
