"""Properties every conversion keeps, over the golden inputs and the example project:
the output parses, converting it again changes nothing, a file without torch is byte-identical,
and every comment of the input is still in the output."""
import io
import tokenize
from pathlib import Path

import libcst as cst
import pytest

from porter import convert_source

from golden_support import case_id, golden_cases, table_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").rglob("*.py"))
INPUTS = [(p, table_for(p.parent)) for p in golden_cases()] + [(p, None) for p in EXAMPLES]
IDS = [case_id(p) if p.name.endswith(".in.py") else str(p.relative_to(ROOT)) for p, _ in INPUTS]


def comments(source: str):
    """The text of every comment token of a Python source."""
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("path,table", INPUTS, ids=IDS)
def test_output_parses_and_is_stable(path, table):
    source = path.read_text(encoding="utf-8")
    once = convert_source(source, path.name, table=table)
    assert once.report.error is None
    cst.parse_module(once.code)
    again = convert_source(once.code, path.name, table=table)
    assert again.code == once.code


@pytest.mark.parametrize("path,table", INPUTS, ids=IDS)
def test_every_comment_survives(path, table):
    source = path.read_text(encoding="utf-8")
    out = convert_source(source, path.name, table=table).code
    out_comments = " ".join(comments(out))
    for c in comments(source):
        assert c in out_comments, f"comment lost: {c!r}"


NO_TORCH = [
    "import numpy as np\n\n\ndef f(x):\n    return np.zeros(3).reshape(3)  # not torch\n",
    "# -*- coding: utf-8 -*-\r\nx = 'torch.cat'\r\n",
    "from torchtext import data\nimport torch_geometric\ntorch = 3\nprint(torch.cat)\n",
    "def torch():\n    pass\n\n\ntorch().nn\n",
    "\ufeffclass A:\n\tdef forward(self):  # tabs\n\t\treturn 1\n",
]


@pytest.mark.parametrize("source", NO_TORCH)
def test_files_without_torch_are_byte_identical(source):
    result = convert_source(source, "x.py")
    assert result.code == source
    assert not result.changed
    assert result.report.found == 0
