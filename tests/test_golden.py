"""Golden tests: ``tests/golden/<rule>/<case>.in.py`` converts exactly to ``<case>.out.py``.

Set ``JTPORT_BLESS=1`` to print the actual output of failing cases (never to overwrite them:
an expected output is written and checked by a person).
"""
import os

import libcst as cst
import pytest

from porter import convert_source

from golden_support import case_id, golden_cases, table_for

CASES = golden_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_golden(case):
    expected_path = case.with_name(case.name.replace(".in.py", ".out.py"))
    assert expected_path.exists(), f"{expected_path} is missing"
    source = case.read_text(encoding="utf-8")
    table = table_for(case.parent)
    result = convert_source(source, case.name, table=table)
    assert result.report.error is None, result.report.error
    if os.environ.get("JTPORT_BLESS") and result.code != expected_path.read_text(encoding="utf-8"):
        print(f"----- actual {case_id(case)} -----\n{result.code}")
    assert result.code == expected_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_golden_output_is_stable(case):
    """Converting the converted output again changes nothing."""
    table = table_for(case.parent)
    once = convert_source(case.read_text(encoding="utf-8"), case.name, table=table).code
    twice = convert_source(once, case.name, table=table).code
    cst.parse_module(once)
    assert twice == once
