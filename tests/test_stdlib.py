"""Robustness: the whole standard library of the running Python converts without a crash,
byte-identical (none of it imports torch); files with syntax errors are reported, not fatal."""
import filecmp
import sysconfig
from pathlib import Path

from porter import convert_path


def test_standard_library_round_trips(tmp_path):
    lib = Path(sysconfig.get_paths()["stdlib"])
    out = tmp_path / "lib_jittor"
    report = convert_path(lib, out, exclude=["site-packages", "__pycache__"], jobs=2)
    py_files = [f for f in report.files]
    assert len(py_files) > 1000, "expected the whole standard library"
    internal = [e for e in report.errors if e.code == "JT901"]
    assert not internal, internal[:5]
    # syntax-error files exist in the stdlib's test data: reported with a line, copied unchanged
    parse_errors = [e for e in report.errors if e.code == "JT900"]
    assert parse_errors, "lib2to3/test data contains files that do not parse"
    assert all(e.line > 0 for e in parse_errors)
    changed = [f.path for f in report.files if f.changed]
    assert changed == []
    mismatched = []
    for f in report.files:
        if not filecmp.cmp(lib / f.path, out / f.path, shallow=False):
            mismatched.append(f.path)
    assert mismatched == []
