"""The jtport command line: convert to a directory, --diff, --check, --in-place, errors."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from porter.cli import main

TORCH_FILE = "import torch\n\n\ndef f(a, b):\n    return torch.cat([a, b], 1)  # join\n"
PLAIN_FILE = "import numpy as np\nprint(np.zeros(3))\n"


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "proj"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "model.py").write_text(TORCH_FILE)
    (src / "plain.py").write_text(PLAIN_FILE)
    (src / "README.txt").write_text("not python\n")
    (src / "broken.py").write_text("import torch\ndef f(:\n")
    return src


def test_convert_directory_default_output(project, capsys):
    assert main(["convert", str(project)]) == 0
    out = project.with_name("proj_jittor")
    converted = (out / "pkg" / "model.py").read_text()
    assert "jt." in converted and "import torch" not in converted and "# join" in converted
    assert (out / "plain.py").read_text() == PLAIN_FILE
    assert (out / "README.txt").read_text() == "not python\n"
    assert (out / "broken.py").read_text() == "import torch\ndef f(:\n"
    printed = capsys.readouterr()
    assert "broken.py:2" in printed.out and "JT900" in printed.out
    # the sources are untouched
    assert (project / "pkg" / "model.py").read_text() == TORCH_FILE


def test_diff_writes_nothing(project, capsys):
    assert main(["convert", str(project), "--diff"]) == 0
    diff = capsys.readouterr().out
    assert "-    return torch.cat([a, b], 1)  # join" in diff
    assert "+++ b/pkg/model.py" in diff
    assert not project.with_name("proj_jittor").exists()


def test_check_exit_codes(project, tmp_path):
    assert main(["convert", str(project), "--check", "-q"]) == 1
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "plain.py").write_text(PLAIN_FILE)
    assert main(["convert", str(clean), "--check", "-q"]) == 0
    assert not (tmp_path / "clean_jittor").exists()


def test_in_place_is_atomic_and_only_changes_torch_files(project):
    before = {p: p.stat().st_mode for p in project.rglob("*.py")}
    assert main(["convert", str(project), "--in-place", "-q"]) == 0
    converted = (project / "pkg" / "model.py").read_text()
    assert "jt.concat" in converted or "jt." in converted
    assert (project / "plain.py").read_text() == PLAIN_FILE
    assert not list(project.rglob("*.jtport-tmp"))
    assert {p: p.stat().st_mode for p in project.rglob("*.py")} == before


def test_report_files(project, tmp_path):
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    assert main(["convert", str(project), "-o", str(tmp_path / "o1"), "-q", "--report", str(md)]) == 0
    assert main(["convert", str(project), "-o", str(tmp_path / "o2"), "-q", "--report", str(js)]) == 0
    assert md.read_text().startswith("# jtport conversion report")
    import json
    data = json.loads(js.read_text())
    assert data["totals"]["files"] == 3 and data["totals"]["errors"] == 1


def test_single_file(tmp_path):
    f = tmp_path / "one.py"
    f.write_text(TORCH_FILE)
    assert main(["convert", str(f), "-q"]) == 0
    assert (tmp_path / "one_jittor.py").exists()


@pytest.mark.parametrize("argv,message", [
    (["convert", "/nonexistent/path"], "no such file or directory"),
    (["convert", "{src}", "-o", "{src}/inside"], "may not lie inside"),
    (["convert", "{src}", "-j", "0"], "-j must be at least 1"),
])
def test_bad_input_is_one_line_error(project, capsys, argv, message):
    argv = [a.format(src=project) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_console_script_help_documents_exit_codes():
    exe = Path(sys.executable).with_name("jtport")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "porter.cli"]
    out = subprocess.run([*cmd, "convert", "--help"], capture_output=True, text=True, check=True).stdout
    assert "exit codes" in out and "--in-place" in out and "--check" in out


def test_symlink_out_of_tree_not_followed(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    outside = tmp_path / "secret.py"
    outside.write_text(TORCH_FILE)
    os.symlink(outside, src / "link.py")
    (src / "a.py").write_text(TORCH_FILE)
    assert main(["convert", str(src), "-q"]) == 0
    assert not (tmp_path / "src_jittor" / "link.py").exists()
    assert (tmp_path / "src_jittor" / "a.py").exists()
