"""Hooks torch pickles with a whole model (``torch.save(model)``), made again or refused by
``shims.checkpoint.module_rebuild``: the old hook-based ``weight_norm`` is applied again with
``shims.nn.weight_norm``; any other hook is an error naming the module and the hook.  The
records are built here as the safe reader makes them from a file (the end-to-end check against a
file torch wrote: ``parity_tests/test_whole_module.py``)."""
import numpy as np
import pytest

import shims  # noqa: F401
import jittor as jt

from shims.checkpoint.errors import CheckpointError
from shims.checkpoint.module_rebuild import rebuild
from shims.checkpoint.whole_module import record_class


def _record(module: str, name: str, state):
    rec = record_class(module, name)()
    rec.build(state)
    return rec


def _linear(hooks: dict, params: dict):
    """A recorded ``torch.nn.Linear(3, 2)`` whose ``_forward_pre_hooks`` are ``hooks``."""
    return _record("torch.nn.modules.linear", "Linear", {
        "training": True, "_parameters": params, "_buffers": {}, "_modules": {},
        "_forward_pre_hooks": hooks, "in_features": 3, "out_features": 2})


@pytest.mark.parametrize("dim", [0, -1])  # per output row; -1: torch's dim=None, the whole tensor
def test_old_weight_norm_hook_is_applied_again(dim):
    rng = np.random.default_rng(1)
    g = rng.standard_normal((2, 1) if dim == 0 else (1,)).astype(np.float32)
    v = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    norm = _record("torch.nn.utils.weight_norm", "WeightNorm", {"name": "weight", "dim": dim})
    rec = _linear({0: norm}, {"bias": jt.array(b), "weight_g": jt.array(g), "weight_v": jt.array(v)})
    model = rebuild(rec, lambda x: x)
    assert sorted(model.state_dict()) == ["bias", "weight_g", "weight_v"]
    x = rng.standard_normal((4, 3)).astype(np.float32)
    scale = np.linalg.norm(v, axis=1, keepdims=True) if dim == 0 else np.linalg.norm(v)
    want = x @ (v * g / scale).T + b
    np.testing.assert_allclose(model(jt.array(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    grads = jt.grad(model(jt.array(x)).sum(), [model.weight_g, model.weight_v])
    assert all(np.abs(gr.numpy()).sum() > 0 for gr in grads)  # g and v are what trains


def test_any_other_hook_is_refused_naming_module_and_hook():
    hook = _record("mytrainer.hooks", "LogActivations", {"every": 10})
    rec = _linear({0: hook}, {"bias": jt.zeros(2), "weight": jt.zeros((2, 3))})
    with pytest.raises(CheckpointError, match=r"Linear .*_forward_pre_hooks \(mytrainer\.hooks\.LogActivations\)"):
        rebuild(rec, lambda x: x)
