"""Where the parity harness works (``porter.prove.workspace``): the checkout when porter runs
from one, else the current folder; a torch-side process of an installed jtport sees only the
``porter`` package on its path."""
import os
import subprocess
from pathlib import Path

import pytest

from porter.prove import workspace

ROOT = Path(__file__).resolve().parents[1]


def test_checkout_is_the_workspace():
    assert workspace.CHECKOUT == ROOT and workspace.ROOT == ROOT
    with workspace.torch_pythonpath() as path:
        assert path == str(ROOT)


def test_installed_torch_path_holds_only_porter(monkeypatch, tmp_path):
    torch_python = ROOT / ".venv-torch" / "bin" / "python"
    if not torch_python.exists():
        pytest.skip(".venv-torch is missing (make .venv-torch/.installed)")
    monkeypatch.setattr(workspace, "CHECKOUT", None)
    with workspace.torch_pythonpath() as path:
        assert os.listdir(path) == ["porter"]
        assert Path(path, "porter").resolve() == ROOT / "porter"
        env = workspace.torch_env(path)
        # .venv-torch has no libcst: the harness's torch side must not import the converter
        code = ("import sys, porter.prove.torch_side.spec_torch; "
                "print(porter.prove.torch_side.spec_torch.__file__); "
                "print(sorted(m for m in sys.modules if m.startswith(('libcst', 'porter.convert.engine'))))")
        proc = subprocess.run([str(torch_python), "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        where, leaked = proc.stdout.splitlines()
        assert where.startswith(path) and leaked == "[]"
    assert not Path(path).exists()


def test_default_torch_python(monkeypatch):
    monkeypatch.setenv("JTPORT_TORCH_PYTHON", "/opt/torch/bin/python")
    assert workspace.default_torch_python() == "/opt/torch/bin/python"
    monkeypatch.delenv("JTPORT_TORCH_PYTHON")
    assert workspace.default_torch_python() == str(ROOT / ".venv-torch" / "bin" / "python")
