"""jtport as a user gets it: the wheel, installed (not editable) into a fresh virtualenv, run from
a folder outside the checkout.

The wheel is built from a copy of the sources (``pip wheel --no-deps``; pip's build isolation
fetches setuptools from the package index, or its cache).  The fresh virtualenv has no pip and
no packages of its own: ``pip --python`` installs the wheel into it with ``--no-deps``, and a
``.pth`` file puts this environment's ``site-packages`` *after* its own on ``sys.path``, so
Jittor, libcst and numpy come from here (installing Jittor again would recompile it) while
``porter`` and ``shims`` can only come from the wheel (``.pth`` files of an added folder are not
read, so this environment's editable jtport stays inactive; the tests check where each package
was imported from).

The virtualenv is made afresh each run at the same place, ``build/wheel_test/venv`` (under a
lock): Jittor keys its compiled kernels on the interpreter's path, so a virtualenv at a new path
compiles every kernel of the parity run again (measured: 46 s instead of 2 s for this tiny
model).  The commands run in a temporary folder outside the checkout.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from porter.machine.env import jittor_site

from porter.doctor import checks

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "wheel_test"
TORCH_PYTHON = ROOT / ".venv-torch" / "bin" / "python"

TORCH_MODEL = '''import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def build():
    return MLP()
'''

SPEC = '''factory = "tinymlp:build"
torch_root = "src"
jittor_root = "src_jittor"
seed = 0
rtol = 1e-5
atol = 1e-6

[inputs]
x = [4, 8]

[train]
steps = 2
optimizer = { name = "sgd", lr = 0.05, momentum = 0.9 }
'''


def _tracked(folders) -> set:
    """The files git tracks under ``folders`` (the package's sources and data)."""
    proc = subprocess.run(["git", "ls-files", *folders], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"git ls-files failed: {proc.stderr.strip()}")
    return set(proc.stdout.split())


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the wheel, the fresh virtualenv's bin folder, a user folder outside the checkout)."""
    WORK.mkdir(parents=True, exist_ok=True)
    with open(WORK.parent / "wheel_test.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one run at a time uses build/wheel_test/venv
        yield _install(tmp_path_factory.mktemp("wheel"))


def _install(tmp: Path):
    src = tmp / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("porter", "shims"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"),
                           str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, "building the wheel failed (pip needs the package index or its cache " \
                                 f"for setuptools):\n{proc.stdout}\n{proc.stderr}"
    [wheel] = (tmp / "dist").glob("jtport-*.whl")

    venv = WORK / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # the test's dependencies (libcst, numpy) from this venv, and Jittor from the folder `make venvs`
    # installs it in (this venv reads it through a .pth, which a path in a .pth does not process)
    deps = [sysconfig.get_paths()["purelib"], *([jittor_site()] if Path(jittor_site()).is_dir() else [])]
    (Path(purelib) / "_jtport_test_deps.pth").write_text("\n".join(deps) + "\n")
    # --force-reinstall: the checkout's editable jtport is visible through the .pth above, and a
    # newer pip then takes the wheel's version as already installed and installs nothing
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-index", "--force-reinstall", str(wheel)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    user = tmp / "user"
    (user / "src").mkdir(parents=True)
    (user / "src" / "tinymlp.py").write_text(TORCH_MODEL)
    assert ROOT not in user.resolve().parents
    return wheel, venv / "bin", user


def _run(installed, *argv, timeout=600):
    """``jtport ARGV`` of the fresh virtualenv, in the user folder, without this checkout on any path."""
    _wheel, bin_, user = installed
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "JTPORT_TORCH_PYTHON"}
    env["PATH"] = f"{bin_}{os.pathsep}{env.get('PATH', os.defpath)}"
    return subprocess.run([str(bin_ / "jtport"), *argv], cwd=user, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_wheel_holds_every_source_and_data_file(installed):
    wheel, bin_, _user = installed
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    missing = sorted(_tracked(["porter", "shims"]) - names)
    assert not missing, f"files missing from the wheel: {missing}"
    for required in ("porter/mapping/torch.toml", "porter/mapping/torch_members.json",
                     "porter/prove/torch_side/torch_dump.py", "porter/prove/torch_side/spec_torch.py",
                     "porter/prove/common.py", "porter/machine/env.py"):
        assert required in names
    assert not any(n.startswith(("parity_tests/", "tests/", "models_ref/")) for n in names)
    # the packages come from the wheel's install, not from this checkout
    code = "import porter, porter.prove.model; print(porter.__file__); print(porter.prove.model.__file__)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([str(bin_ / "python"), "-c", code], cwd=installed[2], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for line in proc.stdout.split():
        assert line.startswith(str(bin_.parent)), line


def test_convert_outside_the_checkout(installed):
    proc = _run(installed, "convert", "src", "-o", "src_jittor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = (installed[2] / "src_jittor" / "tinymlp.py").read_text()
    assert "import shims" in out and "import torch" not in out


def test_doctor_json_outside_the_checkout(installed):
    proc = _run(installed, "doctor", "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == report["exit_code"], proc.stderr
    findings = {f["check"]: f for f in report["findings"]}
    assert list(findings) == [c.name for c in checks.CHECKS]
    assert str(installed[1]) in findings["python"]["message"]  # it checked the fresh virtualenv
    assert findings["jittor_import"]["status"] == "ok", findings["jittor_import"]


def test_parity_outside_the_checkout(installed):
    if not TORCH_PYTHON.exists():
        pytest.skip(".venv-torch is missing (make .venv-torch/.installed)")
    user = installed[2]
    if not (user / "src_jittor").exists():
        assert _run(installed, "convert", "src", "-o", "src_jittor").returncode == 0
    (user / "spec.toml").write_text(SPEC)
    proc = _run(installed, "parity", "spec.toml", "--torch-python", str(TORCH_PYTHON))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for case in ("forward", "grads", "steps"):
        assert f"ok   {case}" in proc.stdout
    # the reference and results go to the user's folder
    rows = json.loads((user / "build" / "parity" / "user" / "spec" / "results" / "spec.json").read_text())
    assert {r["case"] for r in rows} == {"forward", "grads", "steps"} and all(r["status"] == "passed" for r in rows)


def test_broken_spec_exits_2_naming_the_problem(installed):
    user = installed[2]
    (user / "broken.toml").write_text(SPEC.replace('factory = "tinymlp:build"\n', ""))
    proc = _run(installed, "parity", "broken.toml", "--torch-python", str(TORCH_PYTHON))
    assert proc.returncode == 2 and "missing required key 'factory'" in proc.stderr, proc.stdout + proc.stderr
    (user / "typo.toml").write_text(SPEC.replace("seed = 0", "sead = 0"))
    proc = _run(installed, "parity", "typo.toml")
    assert proc.returncode == 2 and "unknown key(s) ['sead']" in proc.stderr, proc.stdout + proc.stderr
    # no .venv-torch in the user's folder and no --torch-python: the message says what to pass
    (user / "notorch.toml").write_text(SPEC)
    proc = _run(installed, "parity", "notorch.toml")
    assert proc.returncode == 2 and "--torch-python" in proc.stderr, proc.stdout + proc.stderr
