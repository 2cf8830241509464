"""Parity of ``shims.nn`` with torch: forward values and gradients, case by case.

The torch side (``torch_side/shims_nn.py``) saves inputs, outputs and the gradients of
``(out * cot).sum()``; here the same inputs go through the shims and are compared.
Tolerances: float32, one layer deep (~1e-5 relative); summation order differs between the
frameworks, so values near zero get an absolute floor of the same size.
"""
from pathlib import Path

import numpy as np
import pytest

import shims  # noqa: F401  (Jittor settings before jittor is imported)
import jittor as jt
from jittor import nn as jnn
from shims import nn
from porter.prove.torchside import TorchSide

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]


TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "shims_nn.py", "shims_nn")


@pytest.fixture(scope="module")
def ref():
    return TORCH_SIDE.run()


def _close(got, want, what, rtol=1e-5, atol=1e-5):
    """Compare with torch.  ``atol`` is at least ``rtol`` times the tensor's largest magnitude:
    normalisation gradients are differences of terms that size, so their float32 error is
    relative to the tensor's scale, not to each element."""
    got = got.numpy() if isinstance(got, jt.Var) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != torch {want.shape}"
    atol = max(atol, rtol * float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def check(ref, name, fn, params=(), rtol=1e-5, atol=1e-5):
    """Run ``fn`` on the case's input; compare output and gradients (input and ``params``)."""
    d = np.load(ref / f"{name}.npz")
    x = jt.array(d["x"])
    out = fn(x)
    _close(out, d["out"], f"{name}: forward", rtol, atol)
    loss = (out * jt.array(d["cot"])).sum()
    targets = [x] + [p for _, p in params]
    grads = jt.grad(loss, targets)
    _close(grads[0], d["gx"], f"{name}: grad wrt input", rtol, atol)
    for (pname, _), g in zip(params, grads[1:]):
        _close(g, d["g_" + pname], f"{name}: grad wrt {pname}", rtol, atol)
    return d


POOL_CASES = {
    "max_ceil": lambda x: nn.max_pool2d(x, (2, 3), 2, 1, ceil_mode=True),
    "max_plain": lambda x: nn.MaxPool2d(3, 2, 1)(x),
    "max_dil": lambda x: nn.max_pool2d(x, [3, 2], [1, 2], [1, 0], dilation=2),
    "max_full": lambda x: nn.MaxPool2d(7)(x),
    "max_3d": lambda x: nn.max_pool2d(x, 2),
    "avg_nopad": lambda x: nn.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_pad": lambda x: nn.avg_pool2d(x, 3, 2, 1),
    "avg_ceil": lambda x: nn.avg_pool2d(x, (2, 3), 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_ceil_pad": lambda x: nn.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    "avg_div": lambda x: nn.AvgPool2d(2, divisor_override=3)(x),
    "avg_full": lambda x: nn.AvgPool2d(7)(x),
    "aavg_34": lambda x: nn.adaptive_avg_pool2d(x, (3, 4)),
    "aavg_57": lambda x: nn.AdaptiveAvgPool2d((5, 7))(x),
    "aavg_up": lambda x: nn.adaptive_avg_pool2d(x, 6),
    "aavg_none": lambda x: nn.adaptive_avg_pool2d(x, (None, 4)),
    "amax_34": lambda x: nn.adaptive_max_pool2d(x, (3, 4)),
    "amax_57": lambda x: nn.AdaptiveMaxPool2d((5, 7))(x),
}


@pytest.mark.parametrize("name", sorted(POOL_CASES))
def test_pooling(ref, name):
    check(ref, name, POOL_CASES[name])


RESIZE_CASES = {
    "up_nearest2": dict(scale_factor=2),
    "up_nearest_size": dict(size=(7, 5)),
    "up_nearest15": dict(scale_factor=1.5),
    "up_nearest07": dict(scale_factor=0.7),
    "up_nexact": dict(scale_factor=1.7, mode="nearest-exact"),
    "up_bil05": dict(scale_factor=0.5, mode="bilinear"),
    "up_bil15": dict(scale_factor=1.5, mode="bilinear"),
    "up_bil_size_ac": dict(size=(13, 4), mode="bilinear", align_corners=True),
    "up_bil_recompute": dict(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True),
    "up_area": dict(size=(4, 5), mode="area"),
    "up_tuple": dict(scale_factor=(2, 0.5), mode="bilinear"),
}
OTHER_CASES = {
    "up_linear": lambda x: nn.interpolate(x, scale_factor=2.5, mode="linear"),
    "upsample_size": lambda x: nn.Upsample(size=(5, 8))(x),
    "leaky": lambda x: nn.leaky_relu(x, negative_slope=0.2),
    "leaky_mod": lambda x: nn.LeakyReLU(0.3)(x),
    "reflect": lambda x: nn.ReflectionPad2d((1, 2, 3, 0))(x),
}


@pytest.mark.parametrize("name", sorted(RESIZE_CASES) + sorted(OTHER_CASES))
def test_resize_pad_activation(ref, name):
    fn = OTHER_CASES.get(name) or (lambda x: nn.interpolate(x, **RESIZE_CASES[name]))
    check(ref, name, fn)


def _set(var, value):
    var.update(jt.array(value))


@pytest.mark.parametrize("tag,momentum", [("bn", 0.1), ("bn_cma", None)])
def test_batchnorm_training_and_running_stats(ref, tag, momentum):
    d = np.load(ref / f"{tag}.npz")
    bn = nn.BatchNorm2d(3, momentum=momentum)
    _set(bn.weight, d["w0"])
    _set(bn.bias, d["b0"])
    bn.train()
    for i in range(2):
        # mean 100 / std 0.1 input: relative error of a two-pass variance stays at float32 level
        _close(bn(jt.array(d[f"x{i}"])), d[f"train{i}"], f"{tag}: train step {i}", 1e-4, 1e-4)
    # gradients scale with 1/std (up to 10x here): absolute floor 1e-4
    check(ref, tag, bn, [("weight", bn.weight), ("bias", bn.bias)], 1e-4, 1e-4)
    st = np.load(ref / f"{tag}_state.npz")
    _close(bn.running_mean, st["running_mean"], f"{tag}: running_mean", 1e-5, 1e-4)
    _close(bn.running_var, st["running_var"], f"{tag}: running_var (unbiased)", 1e-5, 1e-5)
    assert int(bn.num_batches_tracked.item()) == int(st["nbt"])
    bn.eval()
    _close(bn(jt.array(d["x1"])), st["eval"], f"{tag}: eval", 1e-4, 1e-4)
    assert {n for n, _ in bn.named_parameters()} == {"weight", "bias"}
    assert {n for n, _ in bn.named_buffers()} == {"running_mean", "running_var", "num_batches_tracked"}


def test_instance_norm(ref):
    plain = nn.InstanceNorm2d(3)
    assert plain.weight is None and "weight" not in plain.state_dict()
    check(ref, "in_plain", plain, rtol=1e-4, atol=1e-4)
    d = np.load(ref / "in_track.npz")
    m = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    _set(m.weight, d["w0"])
    m.train()
    check(ref, "in_track", m, [("weight", m.weight), ("bias", m.bias)], 1e-4, 1e-4)
    st = np.load(ref / "in_track_state.npz")
    _close(m.running_mean, st["running_mean"], "instance norm running_mean", 1e-5, 1e-4)
    _close(m.running_var, st["running_var"], "instance norm running_var", 1e-5, 1e-5)
    m.eval()
    _close(m(jt.array(st["x_eval"])), st["eval"], "instance norm eval with running stats", 1e-4, 1e-4)


# Inputs with mean 100 / std 0.1: each normalised value carries float32 rounding of
# eps32 * |mean| / std ~ 6e-5 in either framework (torch folds the mean into a bias,
# y = x * s - s * mean, we subtract first), and weight gradients sum ~20 such terms:
# rtol 3e-4 bounds that.  Jittor's own one-pass layers are off by 23-106 here (jittor_gaps).
ILL_CONDITIONED = dict(rtol=3e-4, atol=3e-4)


def test_layer_and_group_norm(ref):
    ln = nn.LayerNorm([5, 6])
    _set(ln.weight, np.load(ref / "ln.npz")["p_weight"])
    check(ref, "ln", ln, [("weight", ln.weight), ("bias", ln.bias)], **ILL_CONDITIONED)
    gn = nn.GroupNorm(3, 6)
    _set(gn.weight, np.load(ref / "gn.npz")["p_weight"])
    check(ref, "gn", gn, [("weight", gn.weight), ("bias", gn.bias)], **ILL_CONDITIONED)


def test_grouped_conv_transpose(ref):
    d = np.load(ref / "convt_g2.npz")
    w, b = jt.array(d["p_w"]), jt.array(d["p_b"])
    check(ref, "convt_g2", lambda x: nn.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                         output_padding=1, groups=2), [("w", w), ("b", b)])
    d = np.load(ref / "convt_sg2.npz")
    ws = jt.array(d["p_w"])
    check(ref, "convt_sg2", lambda x: nn.conv_transpose2d(x, ws, stride=2, groups=3), [("w", ws)])
    d = np.load(ref / "convt_mod.npz")
    m = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
    m.load_state_dict({"weight": d["p_weight"], "bias": d["p_bias"]})
    check(ref, "convt_mod", lambda x: m(x, output_size=[10, 10]),
          [("weight", m.weight), ("bias", m.bias)])


def test_weight_norm_keys_values_and_grads(ref):
    k = np.load(ref / "wn_keys.npz")
    conv = nn.weight_norm(jnn.Conv2d(4, 5, 3))
    assert list(conv.state_dict()) == list(k["keys"])
    conv.load_state_dict({"weight_g": k["weight_g"], "weight_v": k["weight_v"], "bias": k["bias"]})
    check(ref, "wn", conv, [("weight_g", conv.weight_g), ("weight_v", conv.weight_v), ("bias", conv.bias)])
    assert list(conv.state_dict()) == list(k["keys"])  # the recomputed weight never shows up


@pytest.mark.parametrize("name,max_norm,norm_type", [("clip2", 1.0, 2.0),
                                                     ("clipinf", 0.5, float("inf")),
                                                     ("clipbig", 1e6, 2.0)])
def test_clip_grad_norm(ref, name, max_norm, norm_type):
    d = np.load(ref / f"{name}.npz")
    grads = [d[f"g{i}"] for i in range(3)]
    ps = [jt.zeros(g.shape).requires_grad_() for g in grads]
    sum((p * jt.array(g)).sum() for p, g in zip(ps, grads)).backward()
    total = nn.clip_grad_norm_(ps, max_norm, norm_type)  # torch's positional order
    _close(total.numpy().reshape(()), d["total"], f"{name}: total norm")
    for i, p in enumerate(ps):
        _close(p.grad, d[f"c{i}"], f"{name}: clipped grad {i}")


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(jnn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.LeakyReLU(0.2))
        self.heads = nn.ModuleDict({"a": jnn.Linear(4, 2), "b": jnn.Linear(4, 3)})
        self.blocks = nn.ModuleList([jnn.Linear(2, 2) for _ in range(2)])
        self.register_buffer("kernel", jt.ones(3))
        self.register_buffer("scratch", jt.zeros(2), persistent=False)


def test_module_structure_matches_torch(ref):
    d = np.load(ref / "structure.npz")
    net = _Net()
    net.body.insert(1, jnn.Identity())
    net.blocks.append(jnn.Linear(2, 2))
    assert list(net.state_dict()) == list(d["keys"])
    assert [n for n, _ in net.named_parameters()] == list(d["params"])
    assert [n for n, _ in net.named_buffers()] == list(d["buffers"])
    sliced = net.body[1:3]
    assert isinstance(sliced, nn.Sequential)
    assert [type(m).__name__ for m in sliced] == ["Identity", "BatchNorm2d"] == list(d["sliced"])
    assert sliced(jt.ones(1, 4, 3, 3)).shape == [1, 4, 3, 3]


def test_tensor_attributes_after_init_are_not_state(ref):
    """A Var assigned to a module after ``__init__`` is state only if it is a Parameter, as in
    torch (HiSD's trainer keeps its losses on ``self`` in ``update()``)."""
    d = np.load(ref / "tensor_attrs.npz")

    class Trainer(nn.Module):
        def __init__(self):
            super().__init__()
            self.gen = jnn.Linear(2, 2)
            self.gain = jt.ones(2).start_grad()
            self.register_buffer("count", jt.zeros(1))

        def execute(self, x):
            self.hidden = self.gen(x)
            return self.hidden * self.gain

    t = Trainer()
    t.loss_gen = t(jt.ones(1, 2)).mean()
    t.anchor = jt.ones(2)
    t.extra = nn.parameter(jt.zeros(2))
    t.count = t.count + 1
    assert list(t.state_dict()) == list(d["keys"])
    assert [n for n, _ in t.named_parameters()] == list(d["params"])
    assert [n for n, _ in t.named_buffers()] == list(d["buffers"])
