"""``jtport doctor`` end to end: the CLI, its exit status, JSON, the README section, and a
whole run on this machine (the checks one by one are in ``tests/doctor/``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from porter import doctor
from porter.machine import env as jittor_settings

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- troubleshooting:begin -->", "<!-- troubleshooting:end -->"
ENV = jittor_settings
DOC = doctor.checks


def _run_doctor(*args, env=None, timeout=120):
    """``python -m porter.doctor ARGS`` from the repository root, as users run it."""
    environ = {k: v for k, v in os.environ.items() if k not in ("nvcc_path", "use_mkl")}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "porter.doctor", *args], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=timeout)


def test_whole_run_on_this_machine_is_ok_or_warning_with_reasons():
    proc = _run_doctor("--json", "--runtime")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    findings = {f["check"]: f for f in report["findings"]}
    assert list(findings) == [c.name for c in DOC.CHECKS] + ["runtime"]
    assert report["status"] in ("ok", "warning") and report["exit_code"] == 0
    for f in findings.values():
        assert f["status"] in ("ok", "warning") and f["message"]
        if f["status"] == "warning":
            assert f["fix"], f  # a warning always says what to do
    assert findings["jittor_import"]["details"]["version"] == "1.3.11.0"
    # the settings doctor reports are exactly the ones shims.env decides
    clean = {k: v for k, v in os.environ.items() if k not in ("nvcc_path", "use_mkl")}
    assert report["settings"] == [{"name": s.name, "value": s.value, "reason": s.reason}
                                  for s in ENV.required_settings(clean)]
    assert "shims.memory_report()" in findings["runtime"]["message"]


def test_text_output_one_line_per_check_and_exit_status_on_a_problem(tmp_path):
    proc = _run_doctor("--python", str(tmp_path / "no-such-python"), timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    for check in DOC.CHECKS:
        row = [ln for ln in lines if ln.split()[1:2] == [check.name]]
        assert len(row) == 1 and row[0].split()[0] in DOC.STATUSES, (check.name, proc.stdout)
    python_line = next(ln for ln in lines if ln.split()[1] == "python")
    assert python_line.startswith("problem") and "-> fix:" in python_line
    assert "problem(s)" in lines[-1]


def test_unwritable_home_is_reported_not_a_crash(tmp_path):
    """HOME under a file: doctor names it in its home line and exits 1, with no traceback."""
    (tmp_path / "file").write_text("")
    proc = _run_doctor("--json", env={"HOME": str(tmp_path / "file" / "home")})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    findings = {f["check"]: f for f in json.loads(proc.stdout)["findings"]}
    assert findings["home"]["status"] == "problem" and "is not a folder" in findings["home"]["message"]
    assert "see the home line" in findings["jittor_import"]["fix"]


def test_bad_arguments_are_named():
    proc = _run_doctor("--project", "/no/such/folder")
    assert proc.returncode == 2 and "--project /no/such/folder" in proc.stderr
    proc = _run_doctor("--timeout", "0")
    assert proc.returncode == 2 and "--timeout" in proc.stderr


def test_exit_code_follows_the_worst_finding():
    f = DOC.Finding
    assert doctor.exit_code([f("a", "ok", "x"), f("b", "warning", "y", "z")]) == 0
    assert doctor.exit_code([f("a", "ok", "x"), f("b", "problem", "y", "z")]) == 1
    assert DOC.worst_status([f("a", "warning", "x"), f("b", "ok", "y")]) == "warning"


def test_a_check_that_raises_becomes_a_problem_not_a_crash():
    def broken(ctx):
        raise KeyError("boom")
    check = DOC.Check("broken", "Broken", "a check that fails", broken)
    [finding] = DOC.run_checks(DOC.CheckContext(), checks=[check])
    assert finding.status == "problem" and "KeyError" in finding.message


def test_doctor_imports_neither_jittor_nor_torch():
    code = ("import sys, porter.doctor as d; m = d.checks; m.CHECKS; m.CheckContext; import porter.machine.env; "
            "import porter.cli; "
            "bad = [n for n in ('jittor', 'torch', 'shims') if n in sys.modules]; "
            "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_env_script_still_prints_exports():
    proc = subprocess.run(["python3", "-m", "porter.machine.env", "--exports"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]})
    assert proc.returncode == 0
    words = dict(w.split("=", 1) for w in proc.stdout.split())
    assert set(words) <= {"nvcc_path", "use_mkl", "cache_name", "cc_flags", "JTPORT_QUOTED_kernel_flags"}
    # IEEE kernels by default, in a cache of their own (a plain `import jittor` keeps `default`)
    assert words["cc_flags"] == "-O2" and words["cache_name"] == ENV.IEEE_CACHE_NAME != "default"
    fast = subprocess.run(["python3", "-m", "porter.machine.env", "--exports"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"],
                                           "JTPORT_FAST_MATH": "1"})
    words = dict(w.split("=", 1) for w in fast.stdout.split())
    assert "cc_flags" not in words and words["cache_name"] == "jtport_fast"
    assert not any("kernel_flags" in w for w in words)


def test_exported_kernel_flags_survive_env_word_splitting_and_reach_apply():
    # `env $(python3 -m porter.machine.env --exports)` splits on whitespace: a value with spaces
    # travels encoded, and apply() (run by shims and conftest before Jittor) restores it
    clean = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "use_mkl": "0", "nvcc_path": ""}
    exported = dict(w.split("=", 1) for w in ENV.exports(clean).split())
    assert "kernel_flags" not in exported and " " not in "".join(exported.values())
    child = dict(clean, **exported)
    ENV.apply(child)
    assert child["kernel_flags"] == ENV.IEEE_KERNEL_FLAGS and child["cc_flags"] == ENV.IEEE_CC_FLAGS
    # a value the user set wins over the encoded one; a one-word value travels as it is
    mine = dict(clean, kernel_flags="-O2", **exported)
    ENV.apply(mine)
    assert mine["kernel_flags"] == "-O2"
    assert ENV.export_word("kernel_flags", "-O3") == "kernel_flags=-O3"
    assert ENV.export_word("kernel_flags", "") == "kernel_flags="


def test_ieee_kernel_flags_hold_no_fast_math_flag():
    # each of these lets g++ change a result (finite math, reciprocals, reassociation, signed zeros)
    unsafe = ("-Ofast", "-ffast-math", "-ffinite-math-only", "-freciprocal-math", "-funsafe-math-optimizations",
              "-fassociative-math", "-fno-signed-zeros", "-ffp-contract=fast", "-fcx-limited-range")
    assert not set(ENV.IEEE_KERNEL_FLAGS.split()) & set(unsafe)


def test_jtport_cli_dispatches_to_doctor(capsys):
    from porter import cli
    assert cli.main(["doctor", "--markdown"]) == 0
    assert capsys.readouterr().out == DOC.troubleshooting_markdown()


def test_troubleshooting_page_is_generated_from_the_checks():
    proc = _run_doctor("--markdown")
    assert proc.returncode == 0 and proc.stdout == DOC.troubleshooting_markdown()
    for check in (*DOC.CHECKS, DOC.RUNTIME_CHECK):
        assert f"### {check.title}\n\n{check.description}\n" in proc.stdout
    page = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf8")
    assert page.count(BEGIN) == 1 and page.count(END) == 1, "docs/troubleshooting.md lacks the markers"
    block = page.split(BEGIN, 1)[1].split(END, 1)[0]
    assert block.strip("\n") == proc.stdout.strip("\n"), (
        "docs/troubleshooting.md is stale: replace the block between the markers with "
        "the output of `python -m porter.doctor --markdown`")
