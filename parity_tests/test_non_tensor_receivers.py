"""Converting code whose receivers are not tensors changes nothing they compute.

``parity_tests/corpus/non_tensor_idioms.py`` calls torch-named methods (sum, mean, var, view,
clip, transpose, repeat, item, ...) on numpy arrays, lists, strings and a user's class, some
bound where the converter can see they are no tensors, some passed in as parameters.  torch
runs it as written; Jittor runs it converted unmodified; every value must be identical.
"""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import shims  # noqa: F401  (Jittor's settings before anything imports Jittor)
from porter import convert_path
from porter.prove.torchside import TorchSide

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "parity_tests" / "corpus" / "non_tensor_idioms.py"
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "non_tensor_idioms.py", "non_tensor_idioms",
                       (CORPUS,))


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus") / "non_tensor_idioms.py"
    report = convert_path(CORPUS, out)
    assert not report.errors
    spec = importlib.util.spec_from_file_location("non_tensor_idioms_jittor", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return out, module


def test_the_converted_corpus_never_imports_torch(converted):
    assert "import torch" not in converted[0].read_text()


def test_non_tensor_receivers_compute_what_they_did(converted):
    want = json.loads((TORCH_SIDE.run() / "values.json").read_text())
    got = converted[1].results()
    assert sorted(got) == sorted(want)
    wrong = []
    for k, v in want.items():
        value = got[k]
        g = np.asarray(value.numpy() if not isinstance(value, np.ndarray) and hasattr(value, "numpy") else value)
        if g.tolist() != v["value"] or (k != "tensor_sum" and str(g.dtype) != v["dtype"]):
            wrong.append(f"{k}: {g.tolist()!r} ({g.dtype}), torch {v['value']!r} ({v['dtype']})")
    assert not wrong, "\n".join(wrong)
