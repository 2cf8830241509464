"""The GPU parity run's selection and its watchdog (parity_tests/api/device_run.py), without a GPU:
a stand-in child speaks the child's protocol, hangs on one case and dies on another."""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

from parity_tests.api import device_run
from parity_tests.api.case import read_case_ids
from parity_tests.api.runner import cases_by_id
from porter.mapping import default_table

FAKE_CHILD = textwrap.dedent('''
    import json, os, sys, time
    ids = [l for l in open(sys.argv[sys.argv.index("--ids") + 1]).read().split() if l]
    def emit(kind, **d):
        print("@@device_run " + json.dumps(dict(kind=kind, **d)), flush=True)
    emit("started", use_cuda=0, nvcc_flags="", cc_flags="-O2")
    print("a line of Jittor's log", flush=True)
    for i in ids:
        emit("case", id=i)
        if "hang" in i:
            time.sleep(60)
        if "crash" in i:
            os._exit(3)
        emit("result", id=i, api="a", ok=not i.startswith("bad"), forward=True, gradient=None,
             max_abs_err=0.0, max_rel_err=0.0, detail="", seconds=0.0)
''')


def test_selection_is_known_and_expected_to_pass():
    """Every selected case exists, once, and passes on the CPU by its own definition (no xfail,
    no rejected form, no unsupported row): a CUDA failure is then a CUDA finding."""
    ids = read_case_ids(device_run.ROOT / "parity_tests" / "api" / "cuda_cases.txt")
    assert len(ids) == len(set(ids)) and len(ids) >= 50
    table, cases = default_table(), cases_by_id()
    for i in ids:
        c = cases[i]
        assert not c.xfail and not c.expect_unsupported, i
        assert table.get(c.api).status != "unsupported", i


def test_read_case_ids_skips_comments(tmp_path):
    f = tmp_path / "ids.txt"
    f.write_text("# a group\nieee:torch.div/x  # why\n\n  reduce:torch.sum\n")
    assert read_case_ids(f) == ["ieee:torch.div/x", "reduce:torch.sum"]


def test_watchdog_times_out_a_hung_case_and_goes_on(tmp_path, monkeypatch):
    """A hung case is recorded as a timeout, a child that dies as crashed; each time a new child
    runs the rest, and every other case gets its own outcome."""
    child = tmp_path / "child.py"
    child.write_text(FAKE_CHILD)
    monkeypatch.setattr(device_run, "child_command", lambda args: [sys.executable, str(child), *args])
    ids = ["a:1", "a:hang", "bad:2", "a:crash", "a:3"]
    opts = argparse.Namespace(no_warm=True, device="cpu", precise=False, warm_timeout=30.0, case_timeout=5.0)
    log = tmp_path / "log.jsonl"
    out = device_run.run_all(ids, tmp_path, log, opts)
    assert {i: o["status"] for i, o in out.items()} == {
        "a:1": "passed", "a:hang": "timeout", "bad:2": "failed", "a:crash": "crashed", "a:3": "passed"}
    assert out["a:crash"]["detail"] == "child exited 3 in this case"
    assert [json.loads(line)["id"] for line in log.read_text().splitlines()] == ids
    summary = device_run.summarize(out, ids)
    assert (summary["passed"], summary["failed"], summary["timeout"], summary["crashed"]) == (2, 1, 1, 1)
    assert set(summary["not_passed"]) == {"a:hang", "bad:2", "a:crash"}


def test_a_case_that_raises_after_its_forward_fails(tmp_path, monkeypatch):
    """Measured on CUDA: a convolution whose gradient kernel failed to compile raised after its
    forward had compared equal, and the case counted as passed. A raise anywhere fails the case."""
    from parity_tests.api.runner import CaseRunner

    case = cases_by_id()["reduce:torch.sum"]
    runner = CaseRunner(tmp_path)  # no torch results: _run is replaced below

    def forward_then_raise(case, res):
        res.forward = True
        raise RuntimeError("Wrong inputs arguments")

    monkeypatch.setattr(runner, "_run", forward_then_raise)
    res = runner.run(case)
    assert (res.forward, res.gradient, res.ok) == (True, False, False)
    assert "Jittor run raised RuntimeError: Wrong inputs arguments" in res.detail


BURST_CHILD = textwrap.dedent('''
    import json, sys, time
    ids = [l for l in open(sys.argv[sys.argv.index("--ids") + 1]).read().split() if l]
    lines = [dict(kind="started", use_cuda=0, nvcc_flags="", cc_flags="")]
    for i in ids:
        lines += [dict(kind="case", id=i), dict(kind="result", id=i, api="a", ok=True, forward=True,
                                                 gradient=None, detail="")]
    sys.stdout.write("".join("@@device_run " + json.dumps(m) + "\\n" for m in lines))
    sys.stdout.flush()
    time.sleep(60)
''')


def test_watchdog_reads_every_line_of_one_burst(tmp_path, monkeypatch):
    """Lines that arrive in one read are all seen at once, not after a timeout (a buffered reader
    keeps them where select cannot see them)."""
    child = tmp_path / "child.py"
    child.write_text(BURST_CHILD)
    monkeypatch.setattr(device_run, "child_command", lambda args: [sys.executable, str(child), *args])
    opts = argparse.Namespace(no_warm=True, device="cpu", precise=False, warm_timeout=30.0, case_timeout=5.0)
    ids = [f"a:{n}" for n in range(5)]
    out = device_run.run_all(ids, tmp_path, tmp_path / "log.jsonl", opts)
    assert [out[i]["status"] for i in ids] == ["passed"] * 5
