"""What a CUDA build of Jittor needs beyond nvcc (``shims/cuda_extras.py``, ``shims.env.cuda_settings``,
doctor's ``cuda_build``), on fake toolkits: CUDA 13 against Jittor's real ``helper_cuda.h``, the
libraries Jittor downloads at import, and cuDNN 8's files."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from doctor_fakes import ENV, cache_dir, context, make_exe

from porter.machine import cuda_extras as EXTRAS

from porter.doctor import checks as DOC

CUDNN8 = ("libcudnn.so", "libcudnn_ops_infer.so", "libcudnn_ops_train.so", "libcudnn_cnn_infer.so",
          "libcudnn_cnn_train.so")


def fake_toolkit(tmp: Path, release: str, cudnn_libs=CUDNN8, header=True, version_json=False) -> Path:
    """``tmp/cuda-<release>/bin/nvcc`` printing that release, with cuDNN files as asked."""
    home = tmp / f"cuda-{release}"
    nvcc = make_exe(home / "bin", "nvcc", f'echo "Cuda compilation tools, release {release}, V{release}.1"')
    (home / "include").mkdir(parents=True)
    (home / "lib64").mkdir()
    if header:
        (home / "include" / "cudnn.h").write_text("")
    for lib in cudnn_libs:
        (home / "lib64" / lib).write_text("")
    if version_json:  # CUDA >= 11.1 ships it; nvcc then need not run
        nvcc.write_text("#!/bin/sh\nexit 1\n")
        (home / "version.json").write_text(json.dumps({"cuda": {"version": f"{release}.88"}}))
    return nvcc


def fake_jittor(tmp: Path) -> Path:
    """A copy of the installed Jittor's ``helper_cuda.h`` (1.3.11, unpatched) in a fake package."""
    real = Path(EXTRAS.jittor_source_dir()) / EXTRAS.HELPER_CUDA
    target = tmp / "jittor" / EXTRAS.HELPER_CUDA
    target.parent.mkdir(parents=True)
    shutil.copy(real, target)
    return tmp / "jittor"


def test_cuda13_toolkit_against_jittor_1_3_11_runs_on_the_cpu_with_the_patch_named(tmp_path):
    nvcc = fake_toolkit(tmp_path, "13.0")
    jittor = fake_jittor(tmp_path)
    settings = ENV.cuda_settings(str(nvcc), {"HOME": str(tmp_path)}, jittor_dir=str(jittor))
    assert [(s.name, s.value) for s in settings] == [("nvcc_path", "")]
    header = jittor / EXTRAS.HELPER_CUDA
    assert str(header) in settings[0].reason and "sed -i" in settings[0].reason
    # the named command is the fix: after it, nothing reads the removed fields
    patch = EXTRAS.CUDA13_PATCH.format(path=header)
    subprocess.run(patch, shell=True, check=True)
    assert EXTRAS.cuda13_breakage(str(nvcc), str(jittor)) is None
    assert "cudaComputeModeDefault" in header.read_text()
    # version.json decides without running nvcc
    nvcc_json = fake_toolkit(tmp_path / "j", "13.0", version_json=True)
    assert EXTRAS.toolkit_version(str(nvcc_json)) == (13, 0)
    assert EXTRAS.cuda13_breakage(str(nvcc_json), str(fake_jittor(tmp_path / "j"))) is not None


def test_cuda12_toolkit_keeps_cuda_and_offline_downloads_are_turned_off(tmp_path):
    nvcc = fake_toolkit(tmp_path, "12.4")
    env = {"HOME": str(tmp_path / "home")}
    assert EXTRAS.cuda13_breakage(str(nvcc), str(fake_jittor(tmp_path))) is None
    settings = {s.name: s for s in ENV.cuda_settings(str(nvcc), env, jittor_dir=str(tmp_path / "jittor"))}
    assert {k: s.value for k, s in settings.items()} == {"use_cutt": "0", "use_cutlass": "0", "use_nccl": "0"}
    assert "fails offline" in settings["use_nccl"].reason
    # an archive already in Jittor's cache, or the user's own paths, mean no download: no setting
    (tmp_path / "home" / ".cache" / "jittor" / "cutt").mkdir(parents=True)
    (tmp_path / "home" / ".cache" / "jittor" / "cutt" / "cutt-1.2.zip").write_text("")
    env.update(nccl_include_path="/opt/nccl/include", nccl_lib_path="/opt/nccl/lib", use_cutlass="1")
    assert [s.name for s in ENV.cuda_settings(str(nvcc), env, jittor_dir=str(tmp_path / "jittor"))] == []


def test_cudnn_jittor_cannot_load_means_conv_opt(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "use_cutt": "0", "use_cutlass": "0", "use_nccl": "0"}
    jittor = str(tmp_path / "jittor")
    cudnn9 = fake_toolkit(tmp_path / "a", "13.0", cudnn_libs=("libcudnn.so", "libcudnn.so.9"))
    reason = EXTRAS.cudnn_problem(str(cudnn9))
    assert "libcudnn_ops_infer.so" in reason and "cuDNN 9" in reason
    no_header = fake_toolkit(tmp_path / "b", "12.4", header=False)
    assert "no cudnn.h" in EXTRAS.cudnn_problem(str(no_header), machine_lib=str(tmp_path / "none"))
    settings = ENV.cuda_settings(str(no_header), env, jittor_dir=jittor)
    assert [(s.name, s.value) for s in settings] == [("conv_opt", "1")]
    # CUDA 11 takes cuDNN 8's versioned names; a complete cuDNN 8 needs nothing
    cuda11 = fake_toolkit(tmp_path / "c", "11.8", cudnn_libs=[n + ".8" for n in CUDNN8])
    assert EXTRAS.cudnn_problem(str(cuda11)) is None
    assert ENV.cuda_settings(str(cuda11), env, jittor_dir=jittor) == []
    assert ENV.cuda_settings(str(no_header), {**env, "conv_opt": "0"}, jittor_dir=jittor) == []


def test_doctor_cuda_build_finding(tmp_path):
    cuda13 = fake_toolkit(tmp_path / "a", "13.0")
    # the user's nvcc_path is CUDA 13 and the installed Jittor is unpatched: import would fail
    f = DOC.check_cuda_build(context(tmp_path / "a", {"nvcc_path": str(cuda13)}))
    assert f.status == "problem" and "sed -i" in f.fix and f.details["header"].endswith("helper_cuda.h")
    # a CUDA 12 toolkit with nothing in Jittor's cache: jtport's settings, explained
    cuda12 = fake_toolkit(tmp_path / "b", "12.4")
    f = DOC.check_cuda_build(context(tmp_path / "b", {"nvcc_path": str(cuda12)}))
    assert f.status == "warning" and f.details == {"use_cutt": "0", "use_cutlass": "0", "use_nccl": "0"}
    # downloads the user forced on, offline: a problem naming them
    f = DOC.check_cuda_build(context(tmp_path / "b", {"nvcc_path": str(cuda12), "use_cutt": "1",
                                                      "use_cutlass": "1", "use_nccl": "1"}))
    assert f.status == "problem" and "use_nccl=1" in f.message
    for name in ("cutt/cutt-1.2.zip", "cutlass/cutlass.zip", "nccl/nccl.tgz"):
        path = cache_dir(tmp_path / "b") / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    f = DOC.check_cuda_build(context(tmp_path / "b", {"nvcc_path": str(cuda12)}))
    assert f.status == "ok", f
    assert DOC.check_cuda_build(context(tmp_path / "c", {"nvcc_path": ""})).status == "ok"


def test_required_settings_add_the_cuda_build_settings_for_the_nvcc_in_use(tmp_path):
    cuda12 = fake_toolkit(tmp_path, "12.4", header=False)
    env = {"HOME": str(tmp_path / "home"), "nvcc_path": str(cuda12), "use_mkl": "0", "cache_name": "default",
           "cc_flags": "-O2"}
    names = [s.name for s in ENV.required_settings(env, nvcc_fallbacks=())]
    assert names == ["use_cutt", "use_cutlass", "use_nccl", "conv_opt"]
    # on the CPU (nvcc_path empty) there is no CUDA build to prepare
    assert ENV.required_settings({**env, "nvcc_path": ""}, nvcc_fallbacks=()) == []
