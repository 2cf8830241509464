"""Executable parity of the converter rules: torch snippets vs their converted Jittor code.

``torch_side/rules_cases.py`` (torch) runs in ``.venv-torch`` through ``rules_train.py``; here
the same file is converted with the real converter (``porter.convert_source``, shipped table),
imported, and every case runs from the same arrays.  Compared: parameters after 3 optimizer
steps (fused, split + clip, one backward feeding two optimizers, accumulation, a backward with
no optimizer in sight, EMA writes through ``.data``, training after ``eval()``),
buffers/state_dict and non-parameter tensor attributes, R1 / path-length weight gradients
through ``autograd.grad(create_graph=True)``, custom ``autograd.Function``s (one with an output
marked non-differentiable), and torch's gradient model converted as written (accumulation
without ``zero_grad``, StyleGAN2-ADA's phases with ``requires_grad_`` toggles, ``nan_to_num_``
on every ``.grad`` and an R1 term from ``autograd.grad(create_graph=True)`` feeding
``backward()``, a frozen encoder whose features assert ``requires_grad is False``, hooks and
manual clipping through ``.grad``).
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import jittor as jt

from porter import convert_source
from porter.prove.torchside import TorchSide

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "torch_side" / "rules_cases.py"
CASE_NAMES = ["train_fused", "train_split_clip", "train_multi_opt", "train_accumulate",
              "train_bare_backward", "ema_through_data", "eval_keeps_grads", "buffers_and_attrs",
              "r1_penalty", "custom_function", "custom_function_non_differentiable", "train_no_zero_grad",
              "gan_phases", "frozen_encoder", "hooks_and_manual_clip"]

# float32 throughout; three Adam steps divide by sqrt(v) of gradients that agree to ~1e-7
# relative, and the penalties are second-order (two chained backward passes): 1e-5 relative
# plus an absolute floor for values near zero.
RTOL, ATOL = 1e-5, 1e-6


TORCH_SIDE = TorchSide(HERE / "torch_side" / "rules_train.py", "rules", (CASES_FILE,))


@pytest.fixture(scope="module")
def torch_out() -> Path:
    return TORCH_SIDE.run()


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    result = convert_source(CASES_FILE.read_text(encoding="utf-8"), str(CASES_FILE))
    assert result.report.error is None, result.report.error
    problems = [f"{u.where()} {u.code} {u.api}: {u.reason}" for u in result.report.unsupported]
    assert not problems, "\n".join(problems)
    path = tmp_path_factory.mktemp("rules") / "rules_cases_jittor.py"
    path.write_text(result.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("rules_cases_jittor", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_case_is_listed(converted):
    assert [c.__name__ for c in converted.CASES] == CASE_NAMES


@pytest.mark.parametrize("name", CASE_NAMES)
def test_rule_case_matches_torch(name, converted, torch_out):
    arrays = dict(np.load(torch_out / "inputs.npz"))
    expected = dict(np.load(torch_out / f"{name}.npz"))
    state = {k: jt.array(v) for k, v in arrays.items() if "." in k}
    got = getattr(converted, name)(state, jt.array(arrays["x"]), jt.array(arrays["y"]))
    got = {k: v.numpy() for k, v in got.items()}
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        np.testing.assert_allclose(got[key].reshape(want.shape), want, rtol=RTOL, atol=ATOL,
                                   err_msg=f"{name}: {key}")
