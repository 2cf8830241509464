"""``shims.nn.conv2d``/``Conv2d`` against Jittor's own convolution (the per-API cases compare
them with torch): same values and gradients, double backward included, on oneDNN's forward op
where Jittor has one and on Jittor's convolution elsewhere."""
import numpy as np
import pytest

import shims  # noqa: F401  (Jittor's settings, before Jittor is imported)
import jittor as jt
from jittor import compile_extern
from jittor import nn as jnn
from shims import nn
from shims.nn import conv as conv_module

RNG = np.random.default_rng(11)
# (input, weight, stride, padding, dilation, groups)
SHAPES = [((2, 20, 7, 7), (6, 20, 3, 3), 1, 1, 1, 1),
          ((2, 40, 9, 8), (6, 20, 3, 2), (2, 1), (1, 0), (1, 2), 2),
          ((2, 4, 6, 6), (4, 1, 3, 3), 1, 2, 2, 4)]


def _vars(xs, ws, dtype=np.float32):
    x = jt.array(RNG.standard_normal(xs).astype(dtype))
    w = jt.array((RNG.standard_normal(ws) / 4).astype(dtype))
    b = jt.array(RNG.standard_normal(ws[0]).astype(dtype))
    return x, w, b


def _r1(conv, x, w, b, args):
    """y, d sum(y^2)/dx, and the gradients of |that|^2 for w and b (an R1 penalty)."""
    y = conv(x, w, b, *args)
    gx = jt.grad((y * y).sum(), [x])[0]
    return [y, gx] + jt.grad((gx * gx).sum(), [w, b])


@pytest.mark.parametrize("shape", SHAPES, ids=["plain", "strided_groups", "depthwise_dilated_jittors"])
def test_conv2d_values_and_double_backward_match_jittors_conv(shape):
    xs, ws, *args = shape
    x, w, b = _vars(xs, ws)
    got = _r1(nn.conv2d, x, w, b, args)
    want = _r1(jnn.conv2d, x, w, b, args)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-4, atol=1e-5 * np.abs(r.numpy()).max())


def test_float32_forward_runs_on_the_oneDNN_op_where_jittor_has_oneDNN():
    x, w, b = _vars((2, 32, 5, 5), (8, 32, 3, 3))
    jt.profiler.start(0, 0)
    try:
        nn.conv2d(x, w, b, padding=1).sync()
        nn.conv2d(x.float64(), w.float64(), b.float64(), padding=1).sync()
        nn.conv2d(x[:, :16], w[:, :16], b, padding=1).sync()  # 16 channels: one block, Jittor's conv
    finally:
        jt.profiler.stop()
    names = [str(row[0]).split("\u00ab")[0] for row in jt.profiler.report()[1:]]
    assert names.count("jtport_conv") == (1 if compile_extern.mkl_ops is not None else 0), names


def test_float64_and_no_oneDNN_take_jittors_conv(monkeypatch):
    x, w, b = _vars((2, 6, 5, 5), (4, 6, 3, 3), np.float64)
    np.testing.assert_array_equal(nn.conv2d(x, w, b, 1, 1).numpy(), jnn.conv2d(x, w, b, 1, 1).numpy())
    monkeypatch.setattr(conv_module, "_OP", False)
    x, w, b = (v.float32() for v in (x, w, b))
    np.testing.assert_array_equal(nn.conv2d(x, w, b, 1, 1).numpy(), jnn.conv2d(x, w, b, 1, 1).numpy())


def test_string_padding_and_padding_modes():
    x = RNG.standard_normal((1, 2, 6, 5)).astype(np.float32)
    m = nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode="reflect")
    assert m.padding == "same" and m.reversed_padding == (1, 1, 0, 1)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 1)), mode="reflect")
    want = jnn.conv2d(jt.array(padded), m.weight, m.bias)
    np.testing.assert_allclose(m(jt.array(x)).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert tuple(nn.Conv2d(2, 3, 3, padding="valid")(jt.array(x)).shape) == (1, 3, 4, 3)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2d(2, 3, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="strided"):
        nn.conv2d(jt.array(x), m.weight, stride=2, padding="same")
