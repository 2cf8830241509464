"""Per-API parity: every case of ``parity_tests/api/cases`` converted, run and compared.

One test per case (its id is the test id).  The torch side runs once, cached
(``build/parity/api_cases/``).  A ``direct``/``shim``/``rewritten`` row's case must pass forward and,
for a differentiable row, gradient.  An ``unsupported`` row's case is run too and recorded as
a known gap; its test fails if the case passes (the row should then be promoted).

The cases run unfused (Jittor's own kernels).  The convolution cases run fused too
(:func:`test_conv_case_fused`): fused is where Jittor hands convolutions to oneDNN when
``use_mkl=1`` (``jtport install-onednn``).  A few convolution cases also run, unfused and fused,
in a child with oneDNN off (:func:`test_conv_cases_with_onednn_off`), and the profiler says
which runs used oneDNN, so both of Jittor's convolution paths are proven.

Each case's outcome is kept in ``build/parity/api_case_results.json`` (keyed by case id and a
hash of the case's definition, so a subset run adds to earlier ones); at the end of a session
the per-row outcome of every row whose cases all have an outcome is written to
``docs/api_parity_results.json`` (the input of ``python -m porter.prove.coverage_doc``).  Each case's
result also goes to ``build/parity/results/api.json`` for ``make parity``'s summary.
"""
from __future__ import annotations

import json
import os
import sys
import zlib
from pathlib import Path

import pytest

from parity_tests.api.case import all_cases
# TORCH_SIDE: a module-level TorchSide, which conftest.py prefetches once collection ends
from parity_tests.api.runner import TORCH_SIDE, CaseRunner, ResultStore, isfinite_or_none, row_outcomes  # noqa: F401
from parity_tests.api.onednn_probe import run_profiled
from porter.prove import results
from porter.prove.processes import run_tracked

ROOT = Path(__file__).resolve().parents[1]
DOC_RESULTS = ROOT / "docs" / "api_parity_results.json"
CASES = all_cases()
STORE = ResultStore()
_DONE = {}


@pytest.fixture(scope="module")
def runner(request):
    """One runner (converter + torch results) for all cases; the kernels of this session's
    selected cases compile in batches, each when its first case runs (see ``CaseRunner.plan_warm``)."""
    r = CaseRunner()
    selected = [item.callspec.params["case"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")]
    r.plan_warm(selected)
    yield r
    if _DONE:
        write_doc_results(r.table)


def write_doc_results(table) -> None:
    """When every case has a stored result (this session's or an earlier one's, for the same
    case definition), the per-row outcome goes to the committed ``docs/api_parity_results.json``
    (sorted, no timestamps: an unchanged run does not churn it).  A partial run (``-k``, a
    fresh build folder) leaves it alone: it would drop every row it did not run."""
    stored = STORE.load(CASES)
    if not all(c.id in stored for c in CASES):
        return
    rows = row_outcomes([stored[c.id] for c in CASES], table)
    DOC_RESULTS.write_text(json.dumps({"cases": len(CASES), "rows": rows}, indent=1, sort_keys=True) + "\n")


#: the fast loop (``make test``) runs one case in FAST_SAMPLE, chosen by a hash of the case id (so
#: a case stays in or out as others come and go); ``make test-full`` and CI run every case
FAST_SAMPLE = 8


def in_fast_sample(case_id: str) -> bool:
    """Whether the fast loop runs this case."""
    return zlib.crc32(case_id.encode()) % FAST_SAMPLE == 0


def _param(c):
    marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
    if not in_fast_sample(c.id):
        marks.append(pytest.mark.slow)
    return pytest.param(c, id=c.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_api_case(case, runner):
    """Forward (and gradient) parity of one case against its table row's status."""
    entry = runner.table.get(case.api)
    assert entry is not None, f"case {case.id} is for {case.api}, which has no row in porter/mapping/*.toml"
    res = runner.run(case)
    _DONE[case.id] = res
    STORE.put(case, res)
    unsupported = entry.status == "unsupported" and not case.expect_unsupported
    status = "passed" if res.ok else ("xfail" if unsupported or case.xfail else "failed")
    detail = res.detail if not unsupported else f"unsupported row ({entry.reason}); {res.detail}"
    results.record(results.Row(suite="api", case=case.id, status=status,
                               max_abs_err=isfinite_or_none(res.max_abs_err),
                               max_rel_err=isfinite_or_none(res.max_rel_err), detail=detail[:2000]))
    if unsupported:
        assert not res.ok, (f"{case.api} is marked unsupported ({entry.reason}) but its case {case.id} "
                            f"passes: promote the row")
        return
    assert res.forward, f"{case.api} [{entry.status} -> {entry.target}] forward: {res.detail}\n{res.converted}"
    assert res.gradient is not False, f"{case.api} gradient: {res.detail}\n{res.converted}"


def _conv_cases():
    from porter.mapping import default_table

    table = default_table()
    return [c for c in CASES if "conv" in c.api.rsplit(".", 1)[-1].lower() and not c.xfail
            and not c.expect_unsupported and table.get(c.api).status != "unsupported"]


CONV_CASES = _conv_cases()


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CONV_CASES])
def test_conv_case_fused(case, runner):
    """A convolution case with fusion on: with ``use_mkl=1`` its forward and backward run on
    oneDNN (``test_api_case``, unfused, proves Jittor's own convolution kernels)."""
    res = runner.run(case, fuse=True)
    results.record(results.Row(suite="api", case=case.id + "/fused", status="passed" if res.ok else "failed",
                               max_abs_err=isfinite_or_none(res.max_abs_err),
                               max_rel_err=isfinite_or_none(res.max_rel_err), detail=res.detail[:2000]))
    assert res.forward, f"{case.api} fused forward: {res.detail}\n{res.converted}"
    assert res.gradient is not False, f"{case.api} fused gradient: {res.detail}\n{res.converted}"


# grouped, transposed with output padding, 1-d: the convolution forms whose oneDNN and own
# kernels differ most, at a few seconds of compilation in the child
ONEDNN_OFF_CASES = ["nn:torch.nn.Conv2d/tuple_groups", "nn:torch.nn.ConvTranspose2d/groups_outpad",
                    "functional:torch.nn.functional.conv1d"]


def test_conv_cases_with_onednn_off(runner):
    """Jittor's own convolution kernels stay proven while the suites run on oneDNN: in a child
    forced to ``use_mkl=0`` the cases pass unfused and fused with no oneDNN op run (there
    ``shims.nn.conv2d`` falls back on Jittor's convolution).  In this process (oneDNN on where
    installed) the profiler sees oneDNN ops in the fused runs, so the child's "none" is a
    finding, and in the unfused ones at most ``jtport_conv`` (``shims.nn.conv2d``'s forward, for
    more than 16 input channels per group): the per-API suite's unfused cases prove Jittor's own
    kernels otherwise even with ``use_mkl=1``."""
    from jittor import compile_extern

    env = dict(os.environ, use_mkl="0", PYTHONPATH=str(ROOT))
    proc = run_tracked([sys.executable, "-m", "parity_tests.api.onednn_probe", *ONEDNN_OFF_CASES], ROOT, env,
                       timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    off = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (off["use_mkl"], off["mkl_ops_built"]) == (False, False), off
    assert len(off["cases"]) == 2 * len(ONEDNN_OFF_CASES)
    failed = {k: v["detail"] for k, v in off["cases"].items() if not v["ok"]}
    assert not failed, failed
    assert off["mkl_ops"] == {"unfused": [], "fused": []}, off["mkl_ops"]
    here = run_profiled(runner, ONEDNN_OFF_CASES[:1])
    assert all(v["ok"] for v in here["cases"].values()), here["cases"]
    assert not [op for op in here["mkl_ops"]["unfused"] if op.startswith("mkl_")], here["mkl_ops"]
    if compile_extern.mkl_ops is not None:
        assert [op for op in here["mkl_ops"]["fused"] if op.startswith("mkl_conv")], here["mkl_ops"]
