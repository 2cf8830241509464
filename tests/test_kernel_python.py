"""``porter.machine.env.kernel_python``: one kernel-cache key per venv, whichever symlinked
path reached it (Jittor keys each compiled kernel on a command that starts with the interpreter
path; checkouts with ``.venv -> /work/main/.venv`` recompiled each other's kernels)."""
import os

from porter.machine.env import kernel_python


def _venv(tmp_path):
    real = tmp_path / "main" / ".venv" / "bin"
    real.mkdir(parents=True)
    (real / "python").write_text("")
    (real / "python.11").write_text("")
    wt = tmp_path / "wt" / "a"
    wt.mkdir(parents=True)
    os.symlink(real.parent, wt / ".venv")
    return real, wt / ".venv" / "bin"


def test_a_symlinked_venv_is_named_by_its_resolved_directory(tmp_path):
    real, linked = _venv(tmp_path)
    exe = str(linked / "python")
    assert kernel_python(exe, exe) == str(real / "python")
    assert kernel_python(str(linked / "python.11"), exe) == str(real / "python.11")
    assert kernel_python(str(real / "python"), str(real / "python")) == str(real / "python")


def test_other_paths_are_kept(tmp_path):
    real, linked = _venv(tmp_path)
    exe = str(linked / "python")
    assert kernel_python("/opt/other/python", exe) == "/opt/other/python"
    assert kernel_python("", exe) == ""
    assert kernel_python(str(linked / "python3"), exe) == str(linked / "python3")  # no twin there
