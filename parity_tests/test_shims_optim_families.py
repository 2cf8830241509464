"""Parity of ``shims.optim``'s optimizer families (Adadelta, Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop) and of
the newer options of the existing optimizers with torch: parameters after every step, the
optimizer state (``step``, buffers, and the float32 scalars NAdam/ASGD keep) in torch's
``state_dict`` layout, defaults, and a **torch** checkpoint of the optimizer (``torch.save`` of
its ``state_dict``) read by ``shims.load`` and resumed: the next steps equal torch's.

Tolerance: 5+3 float32 steps of a 3x5 least-squares problem, a few float32 ops per element and
step: parameters agree to ~1e-6 relative (checked at 1e-5), as in ``test_shims_optim.py``.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import shims
import jittor as jt
from porter.prove.torchside import TorchSide
from parity_tests.torch_side.shims_optim_families_cases import CONFIGS, RESUME, STEPS

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "shims_optim_families.py", "shims_optim_families",
                       (ROOT / "parity_tests" / "torch_side" / "shims_optim_families_cases.py",
                        ROOT / "parity_tests" / "torch_side" / "shims_optim.py"))


@pytest.fixture(scope="module")
def ref():
    return TORCH_SIDE.run()


def _loss(W, b, X, Y):
    return ((jt.matmul(X, W.transpose(1, 0)) + b - Y) ** 2).mean()


def _params(ref, grouped, lr, W=None, b=None):
    p = np.load(ref / "problem.npz")
    W = jt.array(p["W0"] if W is None else W)
    b = jt.array(p["b0"] if b is None else b)
    params = [{"params": [W]}, {"params": [b], "lr": lr * 0.5}] if grouped else [W, b]
    return W, b, params, jt.array(p["X"]), jt.array(p["Y"])


def _close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * max(1.0, float(np.abs(want).max())), err_msg=what)


@pytest.mark.parametrize("grouped", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_steps_state_and_torch_checkpoint(ref, name, grouped, tmp_path):
    cls, kw = CONFIGS[name]
    tag = f"{name}{'_grouped' if grouped else ''}"
    d = np.load(ref / f"{tag}.npz")
    W, b, params, X, Y = _params(ref, grouped, kw["lr"])
    opt = getattr(shims.optim, cls)(params, **kw)
    for s in range(STEPS):
        opt.step(_loss(W, b, X, Y))
        _close(W.numpy(), d[f"W{s}"], f"{tag}: W after step {s + 1}")
        _close(b.numpy(), d[f"b{s}"], f"{tag}: b after step {s + 1}")
    sd = opt.state_dict()
    torch_state = {k for k in d.files if k.startswith("state_")}
    assert {f"state_{i}_{k}" for i, st in sd["state"].items() for k in st} == torch_state
    for key in torch_state:
        _, i, field = key.split("_", 2)
        v = sd["state"][int(i)][field]
        v = v.numpy() if isinstance(v, jt.Var) else np.asarray(v)
        assert v.dtype == d[key].dtype or field != "step", f"{key}: dtype {v.dtype} vs torch {d[key].dtype}"
        _close(v.reshape(d[key].shape), d[key], key)
    group0 = json.loads(str(d["group0"]))
    for k, v in sd["param_groups"][0].items():
        assert (list(v) if isinstance(v, tuple) else v) == group0[k], f"param_groups[0][{k!r}]"
    # torch's own checkpoint of the optimizer, resumed here
    ck = shims.load(ref / f"{tag}.pth")
    W2, b2, params2, X, Y = _params(ref, grouped, 123.0, ck["W"].numpy(), ck["b"].numpy())
    opt2 = getattr(shims.optim, cls)(params2, **{**kw, "lr": 123.0})
    opt2.load_state_dict(ck["opt"])
    assert opt2.param_groups[0]["lr"] == kw["lr"]
    for s in range(STEPS, STEPS + RESUME):
        opt2.step(_loss(W2, b2, X, Y))
        _close(W2.numpy(), d[f"W{s}"], f"{tag}: W after resumed step {s + 1}")
        _close(b2.numpy(), d[f"b{s}"], f"{tag}: b after resumed step {s + 1}")
    # and our own state_dict through shims.save/shims.load resumes the same way
    shims.save({"opt": opt2.state_dict()}, tmp_path / "ck.pth")
    assert shims.load(tmp_path / "ck.pth")["opt"]["param_groups"][0]["lr"] == kw["lr"]


def test_defaults_match_torch(ref):
    torch_defaults = json.loads((ref / "defaults.json").read_text())
    for cls, want in torch_defaults.items():
        ours = getattr(shims.optim, cls)([jt.zeros(1)]).defaults
        for k, v in ours.items():
            assert k in want, f"{cls}: option {k} unknown to torch"
            assert (list(v) if isinstance(v, tuple) else v) == want[k], f"{cls}.defaults[{k!r}]"
        missing = {k for k, v in want.items() if k not in ours and k not in
                   ("foreach", "fused", "capturable", "differentiable", "decoupled_weight_decay")}
        assert not missing, f"{cls}: torch options missing here: {missing}"


def test_lbfgs_needs_a_closure_and_one_group():
    w = jt.zeros(3)
    with pytest.raises(TypeError, match="closure"):
        shims.optim.LBFGS([w]).step()
    with pytest.raises(ValueError, match="parameter groups"):
        shims.optim.LBFGS([{"params": [w]}, {"params": [jt.zeros(2)]}])


def test_invalid_options_raise_like_torch():
    w = jt.zeros(3)
    for cls, kw in [("Adadelta", dict(rho=1.5)), ("Adagrad", dict(lr_decay=-1)), ("Adamax", dict(betas=(1.0, 0.9))),
                    ("NAdam", dict(momentum_decay=-1)), ("RAdam", dict(eps=-1)), ("ASGD", dict(lambd=-1)),
                    ("Rprop", dict(etas=(1.5, 1.2)))]:
        with pytest.raises(ValueError):
            getattr(shims.optim, cls)([w], **kw)
