"""``shims.optim`` Adafactor, Muon and ``swa_utils``: the parts the per-API parity cases do not
reach (bit-exact bfloat16 rounding, state_dict round trips, identity of the averaged Vars)."""
import numpy as np
import pytest

import shims
import jittor as jt
from shims.optim import swa_utils
from shims.optim.muon import bf16_round


def _bf16_reference(a: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even to bfloat16 on the bits (torch's float -> bfloat16 cast)."""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = np.where(nan, u | 0x400000, u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return r.astype(np.uint32).view(np.float32)


def test_bf16_round_is_bit_exact():
    rng = np.random.default_rng(0)
    special = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 2.7182817, 3.4e38, -3.4e38, 1e-40,
                        -1e-45, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    a = np.concatenate([special, (rng.standard_normal(4096) * 10.0 ** rng.integers(-30, 30, 4096)).astype(np.float32)])
    got = bf16_round(jt.array(a)).numpy()
    want = _bf16_reference(a)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(got[ok].view(np.uint32), want[ok].view(np.uint32))
    assert bf16_round(jt.array(np.float32([[1.01171875, 2.0]]))).shape == [1, 2]


def _train(opt, w, b, x, y, steps):
    for _ in range(steps):
        loss = (((x @ w.transpose()) + b - y) ** 2).mean()
        opt.step(loss)


def _problem():
    rng = np.random.default_rng(1)
    w = jt.array(rng.standard_normal((3, 5)).astype(np.float32))
    b = jt.array(rng.standard_normal(3).astype(np.float32))
    x = jt.array(rng.standard_normal((8, 5)).astype(np.float32))
    y = jt.array(rng.standard_normal((8, 3)).astype(np.float32))
    return w, b, x, y


def test_adafactor_state_dict_round_trip_keeps_factored_shapes():
    w, b, x, y = _problem()
    w2, b2 = w.clone(), b.clone()
    opt = shims.optim.Adafactor([w, b], lr=0.05, weight_decay=0.1)
    _train(opt, w, b, x, y, 5)
    opt2 = shims.optim.Adafactor([w2, b2], lr=0.05, weight_decay=0.1)
    _train(opt2, w2, b2, x, y, 2)
    sd = opt2.state_dict()
    assert set(sd["state"][0]) == {"step", "row_var", "col_var"} and set(sd["state"][1]) == {"step", "variance"}
    assert tuple(sd["state"][0]["row_var"].shape) == (3, 1) and tuple(sd["state"][0]["col_var"].shape) == (1, 5)
    assert sd["param_groups"][0]["eps"] == (None, 1e-3) and "foreach" in sd["param_groups"][0]
    opt3 = shims.optim.Adafactor([w2, b2], lr=0.05, weight_decay=0.1)
    opt3.load_state_dict(sd)
    _train(opt3, w2, b2, x, y, 3)
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    np.testing.assert_array_equal(b2.numpy(), b.numpy())


def test_muon_state_and_checks():
    w, b, x, y = _problem()
    opt = shims.optim.Muon([w], lr=0.02)
    _train(opt, w, b, x, y, 2)
    assert set(opt.state_dict()["state"][0]) == {"momentum_buffer"}  # torch's Muon keeps no step
    with pytest.raises(ValueError, match=r"torch.Size\(\[3\]\)"):
        shims.optim.Muon([w, b])


def test_averaged_model_keys_identity_and_buffers():
    model = shims.nn.Sequential(jt.nn.Linear(5, 4), shims.nn.BatchNorm1d(4))
    swa = swa_utils.AveragedModel(model)
    assert list(swa.state_dict()) == ["n_averaged", "module.0.weight", "module.0.bias", "module.1.weight",
                                      "module.1.bias", "module.1.running_mean", "module.1.running_var",
                                      "module.1.num_batches_tracked"]
    assert [n for n, _ in swa.named_parameters()] == ["module.0.weight", "module.0.bias", "module.1.weight",
                                                      "module.1.bias"]
    weight = swa.module[0].weight
    original = model[0].weight.numpy().copy()
    swa.update_parameters(model)
    model[0].weight.update(model[0].weight + 1.0)
    model(jt.array(np.random.default_rng(2).standard_normal((6, 5)).astype(np.float32)))  # moves running stats
    swa.update_parameters(model)
    assert swa.module[0].weight is weight and not weight.is_stop_grad()
    np.testing.assert_allclose(weight.numpy(), original + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(swa.module[1].running_mean.numpy(), model[1].running_mean.numpy())
    assert int(swa.n_averaged.item()) == 2 and str(swa.n_averaged.dtype) == "int64"


def test_swa_multi_avg_fn_rejects_integers_and_update_bn_without_batchnorm():
    ints = [jt.array(np.int32([1, 2]))]
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        swa_utils.get_swa_multi_avg_fn()(ints, ints, jt.zeros((), dtype=jt.int64))
    model = shims.nn.Sequential(jt.nn.Linear(2, 2))
    model.eval()
    swa_utils.update_bn([jt.ones((2, 2))], model)
    assert not model.training


def test_swalr_state_dict():
    p = jt.ones(2)
    opt = shims.optim.SGD([p], lr=1.0)
    sch = swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=3, anneal_strategy="linear")
    sch.step()
    sd = sch.state_dict()
    assert "optimizer" not in sd and "anneal_func" not in sd and sd["_anneal_strategy"] == "linear"
    other = swa_utils.SWALR(opt, swa_lr=0.5)
    other.load_state_dict(sd)
    assert other.anneal_func is swa_utils.SWALR._linear_anneal and other.anneal_epochs == 3
