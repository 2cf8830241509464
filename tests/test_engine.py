"""The engine: encodings, line endings, atomic in-place writes, parse errors, exclusions."""
import os

import pytest

from porter import convert_path
from porter.convert.engine import atomic_write, decode_source

TORCH = "import torch\n\n\ndef f(a, b):\n    return torch.cat([a, b], 1)\n"


def test_declared_latin1_round_trips(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    text = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + TORCH
    (src / "m.py").write_bytes(text.encode("latin-1"))
    report = convert_path(src, tmp_path / "out", jobs=1)
    assert report.errors == []
    out = (tmp_path / "out" / "m.py").read_bytes()
    assert "# caf\xe9".encode("latin-1") in out and b"import torch\n" not in out


def test_invalid_utf8_is_reported_with_its_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    data = b"import torch\nx = 1\ny = '\xff'\n"
    (src / "bad.py").write_bytes(data)
    report = convert_path(src, tmp_path / "out", jobs=1)
    [err] = report.errors
    assert err.code == "JT900" and err.line == 3 and "utf-8" in err.reason
    assert (tmp_path / "out" / "bad.py").read_bytes() == data


def test_crlf_line_endings_survive(tmp_path):
    f = tmp_path / "w.py"
    f.write_bytes(TORCH.replace("\n", "\r\n").encode())
    convert_path(f, tmp_path / "o.py", jobs=1)
    out = (tmp_path / "o.py").read_bytes()
    assert b"\r\n" in out and b"\n" not in out.replace(b"\r\n", b"")


def test_atomic_write_leaves_original_on_interrupt(tmp_path, monkeypatch):
    target = tmp_path / "keep.py"
    target.write_text("original\n")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"new content\n")
    assert target.read_text() == "original\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.py"]


def test_exclude_and_parallel_jobs(tmp_path):
    src = tmp_path / "src"
    for i in range(8):
        (src / f"pkg{i % 2}").mkdir(parents=True, exist_ok=True)
        (src / f"pkg{i % 2}" / f"m{i}.py").write_text(TORCH)
    (src / "tests").mkdir()
    (src / "tests" / "t.py").write_text(TORCH)
    report = convert_path(src, tmp_path / "out", exclude=["tests"], jobs=2)
    assert sorted(f.path for f in report.files) == sorted(f"pkg{i % 2}/m{i}.py" for i in range(8))
    assert not (tmp_path / "out" / "tests").exists()


def test_decode_rejects_unknown_declared_encoding():
    text, enc, err = decode_source(b"# -*- coding: no-such-codec -*-\nx = 1\n", "x.py")
    assert text is None and err is not None and err.code == "JT900"
