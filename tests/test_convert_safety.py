"""``jtport convert`` never loses a user's file (issue 20): outputs onto sources or over existing
files are refused, in-place rewrites keep symlinks and hard links and clean up after a killed
run, worker processes die with the converter, odd file names do not crash the report."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


from porter.cli import main

TORCH = "import torch\n\nx = torch.zeros(3)\n"


def _convert(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err


def test_file_onto_itself_is_refused(tmp_path, capsys):
    f = tmp_path / "a.py"
    f.write_text(TORCH)
    code, err = _convert(["convert", str(f), "-o", str(f), "-q"], capsys)
    assert code == 2 and "is the source file itself" in err and "--in-place" in err
    assert f.read_text() == TORCH


def test_file_onto_a_hard_link_of_itself_is_refused(tmp_path, capsys):
    f = tmp_path / "a.py"
    f.write_text(TORCH)
    os.link(f, tmp_path / "b.py")
    code, err = _convert(["convert", str(f), "-o", str(tmp_path / "b.py"), "-q"], capsys)
    assert code == 2 and "is the source file itself" in err and f.read_text() == TORCH


def _source_and_taken_output(tmp_path):
    """src/m.py (torch) and an output folder already holding the user's own out/m.py."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(TORCH)
    out = tmp_path / "out"
    out.mkdir()
    (out / "m.py").write_text("mine\n")
    return src, out


def test_existing_output_needs_overwrite(tmp_path, capsys):
    src, out = _source_and_taken_output(tmp_path)
    code, err = _convert(["convert", str(src), "-o", str(out), "-q"], capsys)
    assert code == 2 and "not empty" in err and "--overwrite" in err
    assert (out / "m.py").read_text() == "mine\n"
    assert main(["convert", str(src), "-o", str(out), "-q", "--overwrite"]) == 0
    assert "jittor" in (out / "m.py").read_text()


def test_existing_output_file_needs_overwrite(tmp_path, capsys):
    f = tmp_path / "a.py"
    f.write_text(TORCH)
    out = tmp_path / "b.py"
    out.write_text("mine\n")
    code, err = _convert(["convert", str(f), "-o", str(out), "-q"], capsys)
    assert code == 2 and "exists" in err and out.read_text() == "mine\n"


def test_read_only_output_is_never_replaced(tmp_path, capsys):
    """A mode without write bits is read-only even for root, whom os.access always lets write."""
    src, out = _source_and_taken_output(tmp_path)
    (out / "m.py").chmod(0o444)
    code, err = _convert(["convert", str(src), "-o", str(out), "-q", "--overwrite"], capsys)
    assert code == 2 and f"{out / 'm.py'}: is read-only" in err
    assert (out / "m.py").read_text() == "mine\n"


def test_output_links_into_the_source_are_never_written_through(tmp_path, capsys):
    """out/m.py -> src/m.py, out/pkg -> src/pkg, a dangling out/new.py, and a single-file -o
    onto a link: each refused before anything is written, every source intact."""
    src, out = _source_and_taken_output(tmp_path)
    (src / "pkg").mkdir()
    (src / "pkg" / "n.py").write_text(TORCH)
    cases = {"file": (out / "m.py", src / "m.py"), "dir": (out / "pkg", src / "pkg"),
             "dangling": (out / "m.py", tmp_path / "nowhere.py")}
    for name, (link, target) in cases.items():
        for p in out.iterdir():
            p.unlink()
        link.symlink_to(target)
        code, err = _convert(["convert", str(src), "-o", str(out), "-q", "--overwrite"], capsys)
        assert code == 2 and f"{link}: is a symbolic link (to {target})" in err, (name, err)
        assert not (tmp_path / "nowhere.py").exists()
    other = tmp_path / "other.py"
    other.write_text("mine\n")
    (tmp_path / "single.py").symlink_to(other)
    code, err = _convert(["convert", str(src / "m.py"), "-o", str(tmp_path / "single.py"), "-q",
                          "--overwrite"], capsys)
    assert code == 2 and "is a symbolic link" in err and other.read_text() == "mine\n"
    assert (src / "m.py").read_text() == TORCH and (src / "pkg" / "n.py").read_text() == TORCH


def test_in_place_keeps_symlinks_and_hard_links(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    real = src / "real.py"
    real.write_text(TORCH)
    (src / "link.py").symlink_to("real.py")
    twin = tmp_path / "twin.py"  # a hard link outside the tree
    os.link(real, twin)
    assert main(["convert", str(src), "--in-place", "-q"]) == 0
    assert (src / "link.py").is_symlink() and os.readlink(src / "link.py") == "real.py"
    assert "import torch" not in real.read_text()
    assert twin.read_text() == real.read_text() and os.stat(real).st_nlink == 2
    assert not list(src.glob(".*jtport-tmp")) and not list(tmp_path.glob(".*jtport-tmp"))


def test_in_place_removes_temporaries_of_a_killed_run(tmp_path, capsys):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "m.py").write_text(TORCH)
    stale = src / "pkg" / ".m.py.abc123.jtport-tmp"
    stale.write_text("half")
    keep = src / "pkg" / ".hidden-user-file"
    keep.write_text("x")
    assert main(["convert", str(src), "--in-place"]) == 0
    assert not stale.exists() and keep.exists()
    assert "removed a temporary file left by an interrupted jtport run" in capsys.readouterr().out


def test_non_utf8_file_name_in_report(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(TORCH)
    with open(os.fsencode(src) + b"/caf\xe9.py", "wb") as f:
        f.write(TORCH.encode())
    rep = tmp_path / "rep.md"
    assert main(["convert", str(src), "-o", str(tmp_path / "out"), "--report", str(rep)]) == 0
    text = rep.read_text(encoding="utf-8")
    assert "caf\\udce9.py" in text and "a.py" in text
    assert "caf" in capsys.readouterr().out


def test_workers_die_with_a_killed_converter(tmp_path):
    """kill -9 of ``convert -j2`` must not leave its pool workers sleeping forever."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(400):
        (src / f"m{i}.py").write_text(TORCH * 20)
    proc = subprocess.Popen(["sh", "-c", '"$@" & echo $!; wait', "sh", sys.executable, "-m",
                             "porter.cli", "convert", str(src), "-j2", "-q"],
                            stdout=subprocess.PIPE, text=True)
    pid = int(proc.stdout.readline())
    workers = []
    for _ in range(200):  # wait until the pool is up
        workers = _children(pid)
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    assert len(workers) >= 2, "the pool never started"
    os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.time() + 20
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "pool workers outlived the converter"


def _children(pid: int):
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"
