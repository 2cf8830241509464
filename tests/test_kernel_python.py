"""``porter.machine.env.kernel_python``: one kernel-cache key per kernel for every checkout and
virtualenv (Jittor keys each compiled kernel on its build command, which starts with the
interpreter path: a fresh clone's ``.venv``, CI's checkout or a symlinked worktree recompiled
every kernel)."""
import os
import subprocess
import sys

from porter.machine.env import kernel_python


def _jittor_root(tmp_path):
    root = tmp_path / "site"
    (root / "jittor_utils").mkdir(parents=True)
    (root / "jittor_utils" / "__init__.py").write_text("WHERE = 'jittor_utils of this site'\n")
    return str(root)


def test_every_venv_of_one_base_interpreter_gets_one_launcher(tmp_path):
    root = _jittor_root(tmp_path)
    env = {"HOME": str(tmp_path / "home")}
    paths = set()
    for venv in ("clone1/.venv", "clone2/.venv"):
        exe = str(tmp_path / venv / "bin" / "python")
        paths.add(kernel_python(exe, root, executable=exe, base=sys.executable, environ=env))
        paths.add(kernel_python(exe + ".11", root, executable=exe, base=sys.executable, environ=env))
    assert len(paths) == 1
    launcher = paths.pop()
    assert launcher.startswith(str(tmp_path / "home" / ".cache" / "jtport" / "kernel-python"))


def test_the_launcher_runs_the_base_interpreter_with_jittor_utils(tmp_path):
    root = _jittor_root(tmp_path)
    exe = str(tmp_path / ".venv" / "bin" / "python")
    launcher = kernel_python(exe, root, executable=exe, base=sys.executable, environ={"HOME": str(tmp_path)})
    out = subprocess.run([launcher, "-c", "import sys, jittor_utils; print(jittor_utils.WHERE, sys.version_info[:2])"],
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": "/elsewhere"})
    assert out.stdout.strip() == f"jittor_utils of this site {tuple(sys.version_info[:2])}"


def test_other_paths_are_kept(tmp_path):
    root = _jittor_root(tmp_path)
    exe = str(tmp_path / ".venv" / "bin" / "python")
    env = {"HOME": str(tmp_path)}
    assert kernel_python("/opt/other/python", root, executable=exe, environ=env) == "/opt/other/python"
    assert kernel_python("", root, executable=exe, environ=env) == ""
    assert kernel_python(exe, str(tmp_path / "missing"), executable=exe, base=sys.executable, environ=env) == exe
