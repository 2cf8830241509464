"""Parity of ``shims.optim`` with torch: parameters after every step, optimizer state in
torch's ``state_dict`` layout, defaults, and the lr schedulers' sequences.

Tolerance: 5 float32 steps of a 3x5 least-squares problem; each step is a few float32 ops per
element, so parameters agree to ~1e-6 relative (checked at 1e-5).
"""
import json
from pathlib import Path

import numpy as np
import pytest

import shims
import jittor as jt
from shims.optim import lr_scheduler
from porter.prove.torchside import TorchSide
from parity_tests.torch_side.shims_optim_cases import CONFIGS

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
STEPS = 5


TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "shims_optim.py", "shims_optim",
                       (ROOT / "parity_tests" / "torch_side" / "shims_optim_cases.py",))


@pytest.fixture(scope="module")
def ref():
    return TORCH_SIDE.run()


def _loss(W, b, X, Y):
    return ((jt.matmul(X, W.transpose(1, 0)) + b - Y) ** 2).mean()


def _train(ref, name, grouped, steps=STEPS, opt_hook=None):
    p = np.load(ref / "problem.npz")
    cls, kw = CONFIGS[name]
    W, b = jt.array(p["W0"]), jt.array(p["b0"])
    X, Y = jt.array(p["X"]), jt.array(p["Y"])
    params = [{"params": [W]}, {"params": [b], "lr": kw["lr"] * 0.5}] if grouped else [W, b]
    opt = getattr(shims.optim, cls)(params, **kw)
    traj = []
    for s in range(steps):
        loss = _loss(W, b, X, Y)
        if s % 2:  # both of Jittor's calling conventions
            opt.step(loss)
        else:
            opt.zero_grad()
            opt.backward(loss)
            opt.step()
        traj.append((W.numpy().copy(), b.numpy().copy()))
    return opt, traj, (W, b, X, Y)


@pytest.mark.parametrize("grouped", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_parameters_and_state_match_torch(ref, name, grouped):
    d = np.load(ref / f"{name}{'_grouped' if grouped else ''}.npz")
    opt, traj, _ = _train(ref, name, grouped)
    for s, (W, b) in enumerate(traj):
        np.testing.assert_allclose(W, d[f"W{s}"], rtol=1e-5, atol=1e-6, err_msg=f"{name}: W after step {s + 1}")
        np.testing.assert_allclose(b, d[f"b{s}"], rtol=1e-5, atol=1e-6, err_msg=f"{name}: b after step {s + 1}")
    sd = opt.state_dict()
    torch_state = {k for k in d.files if k.startswith("state_")}
    ours = {f"state_{i}_{k}" for i, st in sd["state"].items() for k in st}
    assert ours == torch_state
    for key in torch_state:
        _, i, field = key.split("_", 2)
        v = sd["state"][int(i)][field]
        v = v.numpy() if isinstance(v, jt.Var) else np.asarray(v)
        # a buffer element's rounding scales with the terms summed into it (the buffer's scale),
        # not with its own value: a momentum entry that cancelled to -0.15 among entries ~5
        # carries ~5e-6 absolute error (measured, centered RMSprop with momentum, unfused)
        np.testing.assert_allclose(v.reshape(d[key].shape), d[key], rtol=1e-5,
                                   atol=1e-6 * max(1.0, float(np.abs(d[key]).max())), err_msg=key)
    group0 = json.loads(str(d["group0"]))
    for k, v in sd["param_groups"][0].items():
        want = group0[k]
        assert (list(v) if isinstance(v, tuple) else v) == want, f"param_groups[0][{k!r}]"


def test_defaults_match_torch(ref):
    torch_defaults = json.loads((ref / "defaults.json").read_text())
    for cls, want in torch_defaults.items():
        ours = getattr(shims.optim, cls)([jt.zeros(1)]).defaults
        for k, v in ours.items():
            assert k in want, f"{cls}: option {k} unknown to torch"
            assert (list(v) if isinstance(v, tuple) else v) == want[k], f"{cls}.defaults[{k!r}]"


def test_state_dict_round_trip_resumes_exactly(ref, tmp_path):
    """Save after 3 steps through shims.save/shims.load, resume in a fresh optimizer: the next
    2 steps equal the uninterrupted run's."""
    _, full, _ = _train(ref, "adam_eps_wd_ams", False, steps=5)
    opt, _, (W, b, X, Y) = _train(ref, "adam_eps_wd_ams", False, steps=3)
    shims.save({"opt": opt.state_dict(), "W": W, "b": b}, tmp_path / "ck.pth")
    ck = shims.load(tmp_path / "ck.pth")
    W2, b2 = jt.array(ck["W"].numpy()), jt.array(ck["b"].numpy())
    opt2 = shims.optim.Adam([W2, b2], lr=0.5)
    opt2.load_state_dict(ck["opt"])
    assert opt2.param_groups[0]["lr"] == 1e-2
    for s in (3, 4):
        opt2.step(_loss(W2, b2, X, Y))
        np.testing.assert_allclose(W2.numpy(), full[s][0], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name,cls,kw", [
    ("step", "StepLR", dict(step_size=3, gamma=0.5)),
    ("multistep", "MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.1)),
    ("exponential", "ExponentialLR", dict(gamma=0.9)),
    ("cosine", "CosineAnnealingLR", dict(T_max=4, eta_min=1e-3)),
    ("lambda", "LambdaLR", dict(lr_lambda=lambda e: (1 - e / 20) ** 0.9)),
])
@pytest.mark.parametrize("native", [False, True], ids=["shims_sgd", "jittor_sgd"])
def test_scheduler_sequences(ref, name, cls, kw, native):
    want = np.load(ref / "schedulers.npz")[name]
    groups = [{"params": [jt.zeros(2)]}, {"params": [jt.zeros(1)], "lr": 0.3}]
    opt = jt.optim.SGD(groups, lr=1.0) if native else shims.optim.SGD(groups, lr=1.0)
    sch = getattr(lr_scheduler, cls)(opt, **kw)
    seq = [[g["lr"] for g in opt.param_groups]]
    for _ in range(12):
        sch.step()
        seq.append([g["lr"] for g in opt.param_groups])
    # python floats on both sides, the same recursive formulas: equal to double rounding
    np.testing.assert_allclose(np.array(seq), want, rtol=1e-12, atol=0)
    assert sch.get_last_lr() == seq[-1]
