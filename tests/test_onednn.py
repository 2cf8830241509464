"""oneDNN provisioning: detection (porter/machine/onednn.py), use_mkl (porter/machine/env.py), the installer.

The installer runs on stand-in wheels with the real wheels' layout (``*.data/data/...``); the
real ones are 65 MB and come from PyPI in ``make venvs``.
"""
import hashlib
import os
import platform
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from porter.doctor import onednn_install
from porter.machine import env as ENV
from porter.machine import onednn as ONEDNN

ROOT = Path(__file__).resolve().parents[1]
LINUX_X86 = (platform.system(), platform.machine()) == onednn_install.SUPPORTED


def fake_wheels(folder, monkeypatch, runtime=b"\x7fELF stand-in"):
    """Two wheels laid out as onednn(-devel)-cpu-gomp 2021.2.0, their hashes pinned."""
    folder.mkdir(parents=True, exist_ok=True)
    data = "onednn_cpu_gomp-2021.2.0.data/data/"
    runtime_whl = folder / "onednn_cpu_gomp-2021.2.0-py2.py3-none-manylinux1_x86_64.whl"
    with zipfile.ZipFile(runtime_whl, "w") as z:
        for name in ("libdnnl.so", "libdnnl.so.2", "libdnnl.so.2.2", "libmkldnn.so"):
            z.writestr(data + "lib/" + name, runtime)
        z.writestr(data + "share/doc/onednn/LICENSE", "Apache-2.0")
        z.writestr("onednn_cpu_gomp-2021.2.0.dist-info/METADATA", "")
    devel = "onednn_devel_cpu_gomp-2021.2.0.data/data/"
    devel_whl = folder / "onednn_devel_cpu_gomp-2021.2.0-py2.py3-none-manylinux1_x86_64.whl"
    with zipfile.ZipFile(devel_whl, "w") as z:
        z.writestr(devel + "include/dnnl.hpp", "#include \"oneapi/dnnl/dnnl.hpp\"")
        z.writestr(devel + "include/oneapi/dnnl/dnnl.hpp", "// api")
        z.writestr(devel + "lib/cmake/dnnl/dnnl-config.cmake", "")
    sha = {p.name.split("-")[0] + "-": hashlib.sha256(p.read_bytes()).hexdigest()
           for p in (runtime_whl, devel_whl)}
    monkeypatch.setattr(onednn_install, "WHEELS",
                        {k: (req, sha[k]) for k, (req, _) in onednn_install.WHEELS.items()})
    return folder


def settings(cache_home, extra=None):
    environ = {"HOME": str(cache_home), "PATH": os.defpath, **(extra or {})}
    return {s.name: s.value for s in ENV.required_settings(environ, nvcc_fallbacks=())}


def test_no_onednn_means_use_mkl_0_and_the_fix(tmp_path):
    status = ONEDNN.status(str(tmp_path / ".cache" / "jittor"), "Linux", "x86_64")
    assert not status.usable and "dnnl_lnx_2.2.0_cpu_gomp.tgz" in status.reason
    assert settings(tmp_path)["use_mkl"] == "0"
    reason = next(s.reason for s in ENV.required_settings({"HOME": str(tmp_path)}, ()) if s.name == "use_mkl")
    assert "jtport install-onednn" in reason


@pytest.mark.skipif(not LINUX_X86, reason="the PyPI wheels are Linux x86_64 only")
def test_install_turns_use_mkl_on_and_the_user_still_wins(tmp_path, monkeypatch):
    wheels = fake_wheels(tmp_path / "wheels", monkeypatch)
    cache = tmp_path / "home" / ".cache" / "jittor"
    folder = onednn_install.install(str(cache), str(wheels), log=lambda *_: None)
    lib = os.path.join(folder, "lib")
    assert os.path.basename(folder) == "dnnl_lnx_2.2.0_cpu_gomp"
    assert {os.readlink(os.path.join(lib, n)) for n in onednn_install.LIB_LINKS} == {"libdnnl.so.2.2"}
    assert os.path.isfile(os.path.join(folder, "include", "oneapi", "dnnl", "dnnl.hpp"))
    assert not os.path.exists(os.path.join(folder, "lib", "cmake"))
    assert os.listdir(cache / "mkl") == ["dnnl_lnx_2.2.0_cpu_gomp"]  # no staging left behind
    assert settings(tmp_path / "home")["use_mkl"] == "1"
    assert "use_mkl" not in settings(tmp_path / "home", {"use_mkl": "0"})
    # a second run leaves the install alone
    assert onednn_install.install(str(cache), str(wheels), log=lambda *_: None) == folder


@pytest.mark.skipif(not LINUX_X86, reason="the PyPI wheels are Linux x86_64 only")
def test_an_incomplete_install_is_not_used_and_force_moves_it_aside(tmp_path, monkeypatch):
    wheels = fake_wheels(tmp_path / "wheels", monkeypatch)
    cache = tmp_path / "home" / ".cache" / "jittor"
    broken = cache / "mkl" / "dnnl_lnx_2.2.0_cpu_gomp" / "lib"
    broken.mkdir(parents=True)
    (broken / "libmkldnn.so").write_text("")  # Jittor would not download, then fail on include/
    assert settings(tmp_path / "home")["use_mkl"] == "0"
    with pytest.raises(onednn_install.InstallError, match="incomplete.*--force"):
        onednn_install.install(str(cache), str(wheels), log=lambda *_: None)
    onednn_install.install(str(cache), str(wheels), force=True, log=lambda *_: None)
    assert settings(tmp_path / "home")["use_mkl"] == "1"
    assert any(n.startswith(".dnnl_lnx_2.2.0_cpu_gomp.replaced-") for n in os.listdir(cache / "mkl"))


def test_a_second_dnnl_folder_makes_it_unusable(tmp_path):
    # Jittor takes whichever dnnl* folder os.listdir gives first
    cache = tmp_path / ".cache" / "jittor"
    folder = cache / "mkl" / "dnnl_lnx_2.2.0_cpu_gomp"
    for rel in ONEDNN.REQUIRED_FILES:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("")
    assert ONEDNN.status(str(cache), "Linux", "x86_64").usable
    (cache / "mkl" / "dnnl_old").mkdir()
    status = ONEDNN.status(str(cache), "Linux", "x86_64")
    assert not status.usable and "dnnl_old" in status.reason


def test_wheels_with_other_contents_are_refused(tmp_path, monkeypatch):
    wheels = fake_wheels(tmp_path / "wheels", monkeypatch)
    monkeypatch.setitem(onednn_install.WHEELS, "onednn_cpu_gomp-", ("onednn-cpu-gomp==2021.2.0", "0" * 64))
    with pytest.raises(onednn_install.InstallError, match="sha256"):
        onednn_install.find_wheels(str(wheels))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("installs", [True, False])
def test_make_venvs_goes_on_with_use_mkl_0_when_onednn_cannot_be_installed(tmp_path, installs):
    """`make venvs` (so `make test`/`make demo`) must not stop where the oneDNN wheels cannot be
    had: it says why and that Jittor runs with use_mkl=0.  The Makefile runs in a folder whose
    venvs are built (stamps newer than their inputs) and whose .venv python is a stand-in for
    `python -m porter.cli install-onednn` that fails (or succeeds) as the real one does."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "porter" / "machine").mkdir(parents=True)  # the settings leaf .venv's stamp depends on
    for name in ("pyproject.toml", "requirements-torch.txt", "porter/machine/env.py"):
        (tmp_path / name).write_text("")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv-torch").mkdir()
    past = time.time() - 60
    for name in ("pyproject.toml", "requirements-torch.txt", "porter/machine/env.py"):
        os.utime(tmp_path / name, (past, past))
    (tmp_path / ".venv" / ".installed").write_text("")
    (tmp_path / ".venv-torch" / ".installed").write_text("")
    python = tmp_path / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n" + ('echo "oneDNN installed"\n' if installs else
                      'echo "jtport install-onednn: pip could not download the oneDNN wheels" >&2\nexit 1\n'))
    python.chmod(0o755)
    done = subprocess.run(["make", "--no-print-directory", "venvs"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    if installs:
        assert "oneDNN installed" in done.stdout and "use_mkl=0" not in done.stdout
    else:
        assert "could not download" in done.stderr
        assert "oneDNN is not installed (the reason is above), so Jittor runs with use_mkl=0" in done.stdout
