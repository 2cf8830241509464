"""Each ``jtport doctor`` check, with its condition provoked on a fake machine in a temp dir."""
from __future__ import annotations

import hashlib
import os
import sys
import time

import pytest

from doctor_fakes import (DOC, ENV, base_environ, cache_dir, context, fake_dist, fake_python, make_exe,
                          real_environ)

GPP = 'echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"'
SMI_DRIVER_12_2 = '''case "$*" in
  *-q*) printf "Driver Version : 535.54\\nCUDA Version : 12.2\\n";;
  *-L*) echo "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1234)";;
esac'''


def nvcc_release(version: str) -> str:
    return f'echo "Cuda compilation tools, release {version}, V{version}.1"'


# ---------------------------------------------------------------- python / OS

def test_python_unrunnable_is_a_problem(tmp_path):
    f = DOC.check_python(context(tmp_path, python=str(tmp_path / "no-such-python")))
    assert f.status == "problem" and "cannot run" in f.message and "--python" in f.fix


def test_python_too_old_is_a_problem(tmp_path):
    old = make_exe(tmp_path / "bin", "python", 'echo \'JTPORT_PROBE {"version": "3.6.9", "executable": '
                   '"/opt/py36/bin/python", "prefix": "/opt/py36", "platform": "Linux", "packages": {}}\'')
    f = DOC.check_python(context(tmp_path, python=str(old)))
    assert f.status == "problem" and "3.6.9" in f.message and ">= 3.7" in f.message


def test_python_ok_names_version_and_os(tmp_path):
    f = DOC.check_python(context(tmp_path))
    assert f.status == "ok" and sys.executable in f.message
    assert "Python %d.%d." % sys.version_info[:2] in f.message


# ---------------------------------------------------------------- compiler

def test_no_compiler_is_a_problem_and_suggests_clang(tmp_path):
    clang = make_exe(tmp_path / "bin", "clang++", 'echo "clang version 16.0.6"')
    ctx = DOC.CheckContext(environ={"HOME": str(tmp_path), "PATH": str(tmp_path / "bin")})
    f = DOC.check_compiler(ctx)
    assert f.status == "problem" and "g++ not found" in f.message
    assert "apt install g++" in f.fix and f"cc_path={clang}" in f.fix


def test_compiler_version_read_like_jittor(tmp_path):
    make_exe(tmp_path / "bin", "g++", GPP)
    f = DOC.check_compiler(context(tmp_path))
    assert f.status == "ok" and f.details["version"] == "12.2.0"
    assert f.details["path"] == str(tmp_path / "bin" / "g++")


def test_broken_compiler_is_a_problem(tmp_path):
    make_exe(tmp_path / "bin", "g++", "echo 'g++: error while loading shared libraries' >&2; exit 127")
    f = DOC.check_compiler(context(tmp_path))
    assert f.status == "problem" and "--version" in f.message


@pytest.mark.parametrize("value, needle", [("", 'Run cmd failed: "" --version'), ("/nowhere/g++", "does not exist")])
def test_bad_cc_path_is_a_problem(tmp_path, value, needle):
    f = DOC.check_compiler(context(tmp_path, {"cc_path": value}))
    assert f.status == "problem" and needle in f.message


def test_windows_with_own_compiler_in_cc_path(tmp_path):
    cl = make_exe(tmp_path / "msvc", "cl.exe", "exit 0")
    f = DOC.check_compiler(context(tmp_path, {"cc_path": str(cl)}, system="Windows"))
    assert f.status == "ok" and str(cl) in f.message
    f = DOC.check_compiler(context(tmp_path, {"cc_path": str(tmp_path / "none.exe")}, system="Windows"))
    assert f.status == "problem"


def test_windows_msvc_known_issue_and_workaround(tmp_path):
    ctx = context(tmp_path, system="Windows", machine="AMD64")
    f = DOC.check_compiler(ctx)
    assert f.status == "warning" and "#631" in f.message and "download its own MSVC" in f.message
    assert "WSL2" in f.fix
    cl = cache_dir(tmp_path) / DOC.MSVC_CL
    cl.parent.mkdir(parents=True)
    cl.write_text("")
    f = DOC.check_compiler(ctx.__class__(environ=ctx.environ, system="Windows"))
    assert f.status == "warning" and str(cl) in f.message and "#631" in f.message


# ---------------------------------------------------------------- home folder

def test_home_that_cannot_be_written_is_a_clear_problem(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    f = DOC.check_home(context(tmp_path, {"HOME": str(tmp_path / "file" / "home")}))
    assert f.status == "problem" and f"HOME={tmp_path / 'file' / 'home'}" in f.message
    assert f"{tmp_path / 'file'} is not a folder" in f.message and "export HOME=" in f.fix


def test_read_only_home(tmp_path):
    home = tmp_path / "ro"
    home.mkdir()
    home.chmod(0o555)
    try:
        if os.access(home, os.W_OK):
            pytest.skip("this user (root) may write into a read-only folder")
        f = DOC.check_home(context(tmp_path, {"HOME": str(home)}))
        assert f.status == "problem" and f"{home} is not writable" in f.message
    finally:
        home.chmod(0o755)


def test_jittor_home_that_cannot_be_written(tmp_path):
    (tmp_path / "file").write_text("")
    f = DOC.check_home(context(tmp_path, {"JITTOR_HOME": str(tmp_path / "file" / "jt")}))
    assert f.status == "problem" and "JITTOR_HOME" in f.message and "JITTOR_HOME" in f.fix


def test_writable_home_is_ok(tmp_path):
    f = DOC.check_home(context(tmp_path))
    assert f.status == "ok" and str(cache_dir(tmp_path)) in f.message


# ---------------------------------------------------------------- MPI

def test_no_openmpi_says_what_to_install(tmp_path):
    make_exe(tmp_path / "bin", "g++", GPP)
    f = DOC.check_mpi(context(tmp_path, {"PATH": str(tmp_path / "bin")}))
    assert f.status == "warning" and "no mpicc" in f.message and "no mpirun" in f.message
    assert f.fix == "distributed runs need: apt-get install openmpi-bin libopenmpi-dev"


def test_openmpi_present_is_ok_and_a_foreign_mpicc_is_a_problem(tmp_path):
    bin_ = tmp_path / "bin"
    make_exe(bin_, "mpicc", 'case "$*" in *--showme*) echo "-I/usr/lib/openmpi/include";; esac')
    make_exe(bin_, "mpirun", 'echo "mpirun (Open MPI) 4.1.4"')
    f = DOC.check_mpi(context(tmp_path, {"PATH": str(bin_)}))
    assert f.status == "ok" and "Open MPI) 4.1.4" in f.message and f.details["mpicc"] == str(bin_ / "mpicc")
    make_exe(bin_, "mpicc", 'echo "mpicc: unknown option --showme:compile" >&2; exit 1')  # MPICH's, say
    f = DOC.check_mpi(context(tmp_path, {"PATH": str(bin_)}))
    assert f.status == "problem" and "use_mpi=0" in f.fix
    assert DOC.check_mpi(context(tmp_path, {"PATH": str(bin_), "use_mpi": "0"})).status == "ok"


def test_mpicc_without_mpirun_and_a_bad_mpicc_path(tmp_path):
    make_exe(tmp_path / "bin", "mpicc", "exit 0")
    f = DOC.check_mpi(context(tmp_path, {"PATH": str(tmp_path / "bin")}))
    assert f.status == "warning" and "no mpirun" in f.message and "openmpi-bin" in f.fix
    f = DOC.check_mpi(context(tmp_path, {"mpicc_path": str(tmp_path / "nowhere")}))
    assert f.status == "problem" and "mpicc_path" in f.message


# ---------------------------------------------------------------- CUDA

def test_nvcc_without_runtime_gets_the_cpu_setting(tmp_path):
    nvcc = make_exe(tmp_path / "cuda" / "bin", "nvcc", nvcc_release("13.0"))
    (tmp_path / "bin").mkdir()
    os.symlink(nvcc, tmp_path / "bin" / "nvcc")  # Jittor follows the link to find lib64
    ctx = context(tmp_path)
    settings = {s.name: s.value for s in ctx.settings()}
    assert settings["nvcc_path"] == ""
    f = DOC.check_cuda_runtime(ctx)
    assert f.status == "warning" and "libcudart" in f.message
    assert f.details["libcudart"] == str(tmp_path / "cuda" / "lib64" / "libcudart.so")
    assert "export nvcc_path=" in f.fix


def test_cuda_runtime_ok_without_nvcc_and_with_empty_nvcc_path(tmp_path):
    assert DOC.check_cuda_runtime(context(tmp_path)).status == "ok"
    make_exe(tmp_path / "bin", "nvcc", nvcc_release("13.0"))
    f = DOC.check_cuda_runtime(context(tmp_path, {"nvcc_path": ""}))
    # the value `make` exports is shown with jtport's reason for it
    assert f.status == "ok" and "CPU" in f.message and "jtport's setting" in f.message


def test_nvcc_fixed_locations_are_searched_like_jittor(tmp_path):
    nvcc = make_exe(tmp_path / "opt" / "cuda" / "bin", "nvcc", nvcc_release("12.1"))
    env = base_environ(tmp_path)
    assert ENV.find_nvcc(env, fallbacks=()) is None
    assert ENV.find_nvcc(env, fallbacks=(str(nvcc),)) == str(nvcc)


@pytest.mark.parametrize("forced", ["missing", "no-runtime"])
def test_forced_nvcc_path_that_cannot_work_is_a_problem(tmp_path, forced):
    nvcc = make_exe(tmp_path / "cuda" / "bin", "nvcc", nvcc_release("12.1"))
    value = str(tmp_path / "missing" / "nvcc") if forced == "missing" else str(nvcc)
    f = DOC.check_cuda_runtime(context(tmp_path, {"nvcc_path": value}))
    assert f.status == "problem" and "nvcc_path=" in f.fix


def test_gpu_present_but_driver_failing(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", "echo \"NVIDIA-SMI has failed because it couldn't communicate "
             "with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\"; exit 9")
    f = DOC.check_gpu(context(tmp_path))
    assert f.status == "warning" and "NVIDIA-SMI has failed" in f.message and "--gpus all" in f.fix


def test_gpu_device_files_without_driver_tools(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "nvidia0").write_text("")
    f = DOC.check_gpu(context(tmp_path))
    assert f.status == "warning" and "nvidia0" in f.message and "no nvidia-smi" in f.message


def test_working_gpu_unusable_without_cuda_toolkit(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", SMI_DRIVER_12_2)
    f = DOC.check_gpu(context(tmp_path))
    assert f.status == "warning" and "A100" in f.message and "runs on the CPU" in f.message
    assert DOC.check_gpu(context(tmp_path / "none")).status == "ok"


def test_toolkit_newer_than_driver(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", SMI_DRIVER_12_2)
    nvcc = make_exe(tmp_path / "cuda" / "bin", "nvcc", nvcc_release("13.0"))
    # forced CUDA (nvcc_path set by the user): the mismatch stops Jittor's kernels
    f = DOC.check_cuda_driver(context(tmp_path, {"nvcc_path": str(nvcc)}))
    assert f.status == "problem" and f.details == {"toolkit": "13.0", "driver": "12.2"}
    assert "insufficient" in f.message and "update the NVIDIA driver" in f.fix
    # nvcc only on PATH, no runtime next to it: jtport runs on the CPU, so only a warning
    f = DOC.check_cuda_driver(context(tmp_path, {"PATH": f"{tmp_path / 'bin'}:{nvcc.parent}:/usr/bin"}))
    assert f.status == "warning" and "CPU here anyway" in f.message


def test_toolkit_supported_by_driver_is_ok(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", SMI_DRIVER_12_2)
    nvcc = make_exe(tmp_path / "cuda" / "bin", "nvcc", nvcc_release("11.8"))
    f = DOC.check_cuda_driver(context(tmp_path, {"nvcc_path": str(nvcc)}))
    assert f.status == "ok" and f.details == {"toolkit": "11.8", "driver": "12.2"}


def test_driver_without_nvcc_means_a_cuda_download(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", SMI_DRIVER_12_2)
    f = DOC.check_cuda_driver(context(tmp_path))
    assert f.status == "warning" and "cuda12.2_cudnn8_linux.tgz" in f.message and "offline" in f.message
    jtcuda = cache_dir(tmp_path) / "jtcuda" / "cuda12.2_cudnn8_linux" / "bin"
    make_exe(jtcuda, "nvcc", nvcc_release("12.2"))
    assert DOC.check_cuda_driver(context(tmp_path)).status == "ok"


# ---------------------------------------------------------------- offline pieces

def test_onednn_missing_gets_use_mkl_0(tmp_path):
    ctx = context(tmp_path)
    assert {s.name: s.value for s in ctx.settings()}["use_mkl"] == "0"
    f = DOC.check_onednn(ctx)
    assert f.status == "warning" and "use_mkl=0" in f.fix and "jtport install-onednn" in f.fix
    assert "dnnl_lnx_2.2.0_cpu_gomp.tgz" in f.message


def test_onednn_forced_on_and_unreachable_is_a_problem(tmp_path):
    f = DOC.check_onednn(context(tmp_path, {"use_mkl": "1"}, can_reach=lambda host: False))
    assert f.status == "problem" and "cannot be reached" in f.message and "export use_mkl=0" in f.fix
    f = DOC.check_onednn(context(tmp_path, {"use_mkl": "1"}, can_reach=lambda host: True))
    assert f.status == "warning" and "downloads it" in f.message


def test_onednn_off_says_who_decided_and_on_when_installed(tmp_path):
    # off by jtport's choice (nothing installed): a warning, the fix is the installer
    f = DOC.check_onednn(context(tmp_path, {"use_mkl": "0"}))
    assert f.status == "warning" and "jtport's setting: no usable oneDNN" in f.message
    assert "jtport install-onednn" in f.fix
    folder = cache_dir(tmp_path) / "mkl" / "dnnl_lnx_2.2.0_cpu_gomp"
    for rel in ("include/dnnl.hpp", "lib/libmkldnn.so", "lib/libdnnl.so.2"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("")
    # installed: jtport turns it on, and says so
    ctx = context(tmp_path)
    assert {s.name: s.value for s in ctx.settings()}["use_mkl"] == "1"
    f = DOC.check_onednn(ctx)
    assert f.status == "ok" and "use_mkl=1 (jtport's setting)" in f.message and str(folder) in f.message
    # the user's choice wins either way, and is named as theirs
    ctx = context(tmp_path, {"use_mkl": "0"})
    assert not any(s.name == "use_mkl" for s in ctx.settings())
    f = DOC.check_onednn(ctx)
    assert f.status == "ok" and "set by you" in f.message and "unset use_mkl" in f.message
    assert DOC.check_onednn(context(tmp_path, {"use_mkl": "1"})).status == "ok"


def test_onednn_from_the_jittor_offline_package(tmp_path, monkeypatch):
    payload = b"a stand-in oneDNN archive"
    checks = DOC
    monkeypatch.setitem(checks.ONEDNN_ARCHIVES, ("Linux", "testarch"),
                        ("dnnl_test.tgz", hashlib.md5(payload).hexdigest()))
    site = tmp_path / "site"
    fake_dist(site, "jittor_offline", "1.0")
    (site / "jittor_offline").mkdir(parents=True)
    (site / "jittor_offline" / "dnnl_test.tgz").write_bytes(payload)
    ctx = context(tmp_path, {"use_mkl": "1", "PYTHONPATH": str(site)}, machine="testarch")
    f = DOC.check_onednn(ctx)
    assert f.status == "ok" and "jittor_offline" in f.message
    (site / "jittor_offline" / "dnnl_test.tgz").write_bytes(b"truncated")
    ctx = context(tmp_path, {"use_mkl": "1", "PYTHONPATH": str(site)}, machine="testarch")
    assert DOC.check_onednn(ctx).status == "problem"


def test_onednn_corrupt_archive_is_named(tmp_path):
    mkl = cache_dir(tmp_path) / "mkl"
    mkl.mkdir(parents=True)
    (mkl / "dnnl_lnx_2.2.0_cpu_gomp.tgz").write_bytes(b"<html>502 Bad Gateway</html>")
    f = DOC.check_onednn(context(tmp_path, {"use_mkl": "0"}, machine="x86_64", system="Linux"))
    assert f.status == "warning" and "corrupt" in f.message and "dnnl_lnx_2.2.0_cpu_gomp.tgz" in f.fix


def test_cutlass_with_wrong_md5(tmp_path):
    folder = cache_dir(tmp_path) / "cutlass"
    folder.mkdir(parents=True)
    (folder / "cutlass.zip").write_bytes(b"PK\x03\x04 truncated")
    f = DOC.check_cutlass(context(tmp_path))
    assert f.status == "warning" and "not 999ecb7e217e40c497bc3d0ded6643f0" in f.message
    assert f"delete {folder / 'cutlass.zip'}" in f.fix and "CUTLASS_PATH" in f.fix
    # with CUDA forced on, the corrupt archive stops Jittor
    nvcc = make_exe(tmp_path / "cuda" / "bin", "nvcc", nvcc_release("12.1"))
    assert DOC.check_cutlass(context(tmp_path, {"nvcc_path": str(nvcc)})).status == "problem"
    (folder / "cutlass.zip").unlink()
    assert DOC.check_cutlass(context(tmp_path)).status == "ok"


# ---------------------------------------------------------------- arithmetic

def test_arithmetic_says_ieee_or_fast_math_and_who_chose_it(tmp_path):
    ieee = DOC.check_arithmetic(context(tmp_path))
    assert ieee.status == "ok" and "IEEE" in ieee.message and "cc_flags=-O2" in ieee.message
    made = DOC.check_arithmetic(context(tmp_path, {"cc_flags": "-O2"}))
    assert made.status == "ok" and "jtport's setting" in made.message
    own = DOC.check_arithmetic(context(tmp_path, {"cc_flags": "-O3 -march=native"}))
    assert own.status == "ok" and "set by you" in own.message
    for extra, why in (({"JTPORT_FAST_MATH": "1"}, "JTPORT_FAST_MATH=1"), ({"cc_flags": "-g"}, "no -O level")):
        fast = DOC.check_arithmetic(context(tmp_path, extra))
        assert fast.status == "warning" and why in fast.message and "-Ofast" in fast.message and fast.fix


def test_doctor_runs_jittor_with_the_kernel_flags_make_exports_encoded(tmp_path):
    # `make` exports cc_flags=-O2 and the spaced kernel_flags encoded; doctor's Jittor gets them decoded
    exported = dict(w.split("=", 1) for w in ENV.exports(context(tmp_path).environ).split())
    ctx = context(tmp_path, exported)
    assert "kernel_flags" not in ctx.environ
    assert ctx.jittor_environ()["kernel_flags"] == ENV.IEEE_KERNEL_FLAGS


# ---------------------------------------------------------------- Jittor's cache and import

def _fake_core(tmp_path, extra):
    """Put a stand-in for Jittor's compiled core where Jittor would look (asked from jittor_utils)."""
    info = DOC.jittor_utils_info(context(tmp_path, extra))
    assert "error" not in info, info
    core = os.path.join(info["cache_path"], "jittor_core.cpython-311-x86_64-linux-gnu.so")
    with open(core, "w") as f:
        f.write("")
    return info, core


def test_cache_not_built_for_this_python_then_built(tmp_path):
    extra = {"cache_name": "default"}
    old_build = cache_dir(tmp_path) / "jt1.3.11" / "g++9.4.0" / "py3.8.10" / "Linux-5.4" / "cpu" / "ab12" / "default"
    old_build.mkdir(parents=True)
    (old_build / "jittor_core.cpython-38-x86_64-linux-gnu.so").write_bytes(b"\0" * 4096)
    f = DOC.check_jittor_cache(context(tmp_path, extra))
    assert f.status == "warning" and "no Jittor core built yet" in f.message
    assert "jt1.3.11/g++9.4.0/py3.8.10/Linux-5.4/cpu/ab12/default" in f.message and "delete" in f.fix
    assert f.details["cache_path"].startswith(str(cache_dir(tmp_path) / "jt1.3.11"))
    assert f"py{sys.version.split()[0]}" in f.details["relative"]
    _fake_core(tmp_path, extra)
    f = DOC.check_jittor_cache(context(tmp_path, extra))
    assert f.status == "ok" and f.details["core_built"]


def test_cache_named_after_git_branch(tmp_path):
    # no cache_name: Jittor names the cache after the git branch its package sits in, if any
    f = DOC.check_jittor_cache(context(tmp_path))
    if f.details["cache_name"] == "default":
        pytest.skip("this checkout's Jittor is not inside a git repository")  # pragma: no cover
    assert "cache_name=default" in f.fix and f.details["cache_name"] in f.message


def test_persisted_jittor_home_is_explained(tmp_path):
    elsewhere = tmp_path / "big-disk"
    config = cache_dir(tmp_path) / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"JITTOR_HOME": "%s"}' % elsewhere)
    ctx = context(tmp_path, {"cache_name": "default"})
    assert ctx.cache_dir() == str(elsewhere / ".cache" / "jittor")
    f = DOC.check_jittor_cache(ctx)
    assert "config.json" in f.message and f.details["root"] == str(elsewhere / ".cache" / "jittor")


def test_import_failure_shows_jittors_error_and_fix(tmp_path):
    py = fake_python(tmp_path / "fake", 'echo "Traceback (most recent call last):" >&2; '
                     'echo "OSError: libcudart.so: cannot open shared object file: No such file or directory" >&2; '
                     'exit 1')
    f = DOC.check_jittor_import(context(tmp_path, python=str(py)))
    assert f.status == "problem" and "OSError: libcudart.so" in f.message
    assert "nvcc_path=" in f.fix


def _running(pid: int) -> bool:
    """True while ``pid`` runs (a killed child nobody reaped yet is a zombie: not running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_import_timeout_cold_cache_is_a_warning_warm_is_a_problem(tmp_path, monkeypatch):
    # the stand-in for a compiling import starts a child that would hold the pipe open
    py = fake_python(tmp_path / "fake", f'sleep 30 & echo $! > "{tmp_path}/child"; wait')
    extra = {"cache_name": "default"}
    t0 = time.time()
    f = DOC.check_jittor_import(context(tmp_path, extra, python=str(py), timeout=1))
    assert time.time() - t0 < 15
    assert f.status == "warning" and "first time" in f.message
    child = int((tmp_path / "child").read_text())
    time.sleep(0.2)
    assert not _running(child)  # doctor killed the whole process group
    _fake_core(tmp_path, extra)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))  # an idle machine
    f = DOC.check_jittor_import(context(tmp_path, extra, python=str(py), timeout=1))
    assert f.status == "problem" and "waiting on something" in f.message, f.message
    # on a busy machine a slow import is not called stuck: a warning saying why
    monkeypatch.setattr(os, "getloadavg", lambda: (float(os.cpu_count() or 1) * 4,) * 3)
    f = DOC.check_jittor_import(context(tmp_path, extra, python=str(py), timeout=1))
    assert f.status == "warning" and "the machine is busy" in f.message and "idle" in f.fix, f.message


def test_jittor_not_installed(tmp_path):
    f = DOC.check_jittor_import(context(tmp_path, python="/usr/bin/python3"))
    assert f.status == "problem" and "not installed" in f.message and "jittor==1.3.11.0" in f.fix


# ---------------------------------------------------------------- numpy and torch

def test_numpy_2_under_jittor_is_a_problem(tmp_path):
    fake_dist(tmp_path / "site", "numpy", "2.1.3")
    f = DOC.check_numpy(context(tmp_path, {"PYTHONPATH": str(tmp_path / "site")}))
    assert f.status == "problem" and "2.1.3" in f.message and "numpy<2.0" in f.message
    assert 'pip install "numpy<2.0"' in f.fix and ".venv-torch" in f.fix


def test_numpy_replaced_after_core_compiled(tmp_path):
    extra = {"cache_name": "default", "PYTHONPATH": str(tmp_path / "site")}
    _, core = _fake_core(tmp_path, extra)
    fake_dist(tmp_path / "site", "numpy", "1.26.4")  # "installed" now
    old = time.time() - 3600
    os.utime(core, (old, old))
    f = DOC.check_numpy(context(tmp_path, extra))
    assert f.status == "warning" and "after Jittor's core was compiled" in f.message
    os.utime(core, None)
    f = DOC.check_numpy(context(tmp_path, extra))
    assert f.status == "ok" and "unchanged" in f.message


def test_torch_next_to_jittor_warns_with_the_two_venv_layout(tmp_path):
    fake_dist(tmp_path / "site", "torch", "2.5.1", requires=("numpy",))
    f = DOC.check_torch(context(tmp_path, {"PYTHONPATH": str(tmp_path / "site")}))
    assert f.status == "warning" and "2.5.1" in f.message and "make venvs" in f.fix
    assert DOC.check_torch(context(tmp_path)).status == "ok"


@pytest.mark.parametrize("version, spec, ok", [("1.26.4", "<2.0", True), ("2.0.0", "<2.0", False),
                                                ("2.0", ">=1.20,<2", False), ("1.19.5", ">=1.20", False)])
def test_requirement_specifiers(version, spec, ok):
    from porter.doctor import base as checks

    assert checks._satisfies(version, spec) is ok
    assert checks._requirement(["tqdm", f"numpy{spec}", 'pywin32>=1.0; platform_system == "Windows"'],
                               "numpy") == spec


# ---------------------------------------------------------------- datasets

def test_dead_mnist_url_in_project(tmp_path):
    project = tmp_path / "proj"
    (project / "data").mkdir(parents=True)
    (project / "data" / "mnist.py").write_text('import os\n\nURL = "http://yann.lecun.com/exdb/mnist/"\n')
    venv = project / "venv"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "lib" / "x.py").write_text('"http://yann.lecun.com/exdb/mnist/"\n')  # a venv is not user code
    f = DOC.check_datasets(context(tmp_path, project=str(project)))
    assert f.status == "warning" and "data/mnist.py:3" in f.message and "venv" not in f.message
    assert "storage.googleapis.com/cvdf-datasets/mnist" in f.fix and "download=False" in f.fix


def test_incomplete_mnist_download_in_cache(tmp_path):
    folder = cache_dir(tmp_path) / "dataset" / "mnist_data"
    folder.mkdir(parents=True)
    (folder / "train-images-idx3-ubyte.gz").write_bytes(b"")
    f = DOC.check_datasets(context(tmp_path))
    assert f.status == "warning" and "t10k-labels-idx1-ubyte.gz" in f.message
    assert DOC.check_datasets(context(tmp_path / "clean")).status == "ok"


# ---------------------------------------------------------------- runtime

GPU_HOLDERS = '''case "$*" in
  *query-gpu*) echo "0, NVIDIA A100-SXM4-40GB, 39000, 40960";;
  *query-compute-apps*) echo "4242, python, 38000";;
esac'''


def test_runtime_names_gpu_memory_holders_and_falls_back_to_jittor_counters(tmp_path):
    make_exe(tmp_path / "bin", "nvidia-smi", GPU_HOLDERS)
    # a `shims` without memory_report: doctor explains Jittor's own counters instead
    (tmp_path / "site" / "shims").mkdir(parents=True)
    (tmp_path / "site" / "shims" / "__init__.py").write_text("")
    # run from tmp_path: from the repository root, `import shims` would find the real one
    py = make_exe(tmp_path / "fake", "python", f'cd "{tmp_path}" && exec "{sys.executable}" "$@"')
    environ = real_environ({"PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
                            "PYTHONPATH": str(tmp_path / "site")})
    ctx = DOC.CheckContext(environ=environ, python=str(py), nvcc_fallbacks=(), dev_dir=str(tmp_path / "dev"))
    f = DOC.check_runtime(ctx)
    assert f.status == "warning" and "pid 4242" in f.message and "39000 of 40960 MiB" in f.message
    assert "kill" in f.fix
    assert f.details["report"]["lived_vars"] >= 0 and "hold_vars" in f.details["report"]
    assert "jt.liveness_info()" in f.message and "lived_ops" in f.details["explanation"]


def test_runtime_host_memory(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16777216 kB\nMemAvailable:    4194304 kB\n")
    ctx = DOC.CheckContext(environ=base_environ(tmp_path), python="/usr/bin/python3",
                           meminfo=str(meminfo))
    assert "host memory 4.0 GiB free of 16.0 GiB" in DOC.check_runtime(ctx).message


def test_host_reachable_fails_fast_for_unknown_host():
    t0 = time.time()
    assert DOC.host_reachable("jtport-doctor-test.invalid", timeout=2) is False
    assert time.time() - t0 < 5


def test_jittor_home_precedence(tmp_path):
    config = cache_dir(tmp_path) / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"JITTOR_HOME": "%s"}' % (tmp_path / "persisted"))
    env = base_environ(tmp_path)
    assert ENV.jittor_home(env) == str(tmp_path / "persisted")
    assert ENV.jittor_home({**env, "JITTOR_HOME": str(tmp_path / "now")}) == str(tmp_path / "now")
    config.write_text("not json")
    assert ENV.jittor_home(env) == str(tmp_path / "home")
