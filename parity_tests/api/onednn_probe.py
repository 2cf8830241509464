"""Run per-API cases unfused and fused under Jittor's profiler, and say which oneDNN ops ran.

usage: python -m parity_tests.api.onednn_probe CASE_ID [CASE_ID ...]

Prints one JSON line: ``use_mkl`` (Jittor's setting in this process), ``mkl_ops_built``
(whether Jittor built its oneDNN ops), per case and mode whether the case passed and why not,
and per mode (``unfused``, ``fused``) the names of the profiled ops that ran on oneDNN
(Jittor's ``mkl_*`` ops and ``jtport_conv``, :func:`shims.nn.conv2d`'s forward).
``parity_tests/test_api_parity.py`` runs it with ``use_mkl=0`` to keep Jittor's own
convolution kernels proven while the suites run with oneDNN.
"""
from __future__ import annotations

import json
import sys
from typing import Dict, List


def mkl_ops(report: List[list]) -> List[str]:
    """The oneDNN op names in a ``jt.profiler.report()`` (its first row is the header; an op's
    name is followed by its template arguments after a "«")."""
    return sorted({str(row[0]).split("\u00ab")[0] for row in report[1:]
                   if str(row[0]).startswith(("mkl_", "jtport_conv"))})


def run_profiled(runner, case_ids: List[str]) -> Dict[str, dict]:
    """Each case unfused, then fused: ``{"cases": {id/mode: {ok, detail}}, "mkl_ops": {mode: [...]}}``."""
    import jittor as jt

    from parity_tests.api.runner import cases_by_id

    cases = cases_by_id()
    out: Dict[str, dict] = {"cases": {}, "mkl_ops": {}}
    for mode in ("unfused", "fused"):
        jt.profiler.start(0, 0)
        try:
            for case_id in case_ids:
                res = runner.run(cases[case_id], fuse=mode == "fused")
                out["cases"][f"{case_id}/{mode}"] = {"ok": res.ok, "detail": res.detail[:500]}
        finally:
            jt.profiler.stop()
        out["mkl_ops"][mode] = mkl_ops(jt.profiler.report())
    return out


def main(case_ids: List[str]) -> Dict[str, object]:
    """Run the cases in this process; the JSON-able outcome described in the module docstring."""
    import shims  # noqa: F401  (applies shims.env before Jittor starts)
    from jittor import compile_extern

    from parity_tests.api.runner import CaseRunner

    return {"use_mkl": bool(compile_extern.use_mkl), "mkl_ops_built": compile_extern.mkl_ops is not None,
            **run_profiled(CaseRunner(), case_ids)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
