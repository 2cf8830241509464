"""Gradients of broadcast operands sum in float64 (``shims.ops.broadcast_grad``): a bias over
2^20 terms comes out as the float64 sum rounded once; Jittor's own broadcast (the context
``sequential_float32_sums``) is measurably worse, so the check can fail."""
import numpy as np

import shims
from shims import jt
from shims.ops.broadcast_grad import broadcast_shape, sequential_float32_sums


def _bias_grad(x: np.ndarray, w: np.ndarray):
    b = jt.zeros(2)
    y = jt.array(x).stop_grad() + b.view(1, 2, 1, 1)
    return jt.grad((y * jt.array(w).stop_grad()).sum(), b).numpy()


def _error(got, x, w):
    exact = w.astype(np.float64).sum((0, 2, 3))
    return float(np.abs(got - exact).max() / np.abs(exact).max())


def test_bias_gradient_sums_like_float64():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2, 512, 512)).astype(np.float32)
    w = rng.standard_normal((4, 2, 512, 512)).astype(np.float32)
    wide = _error(_bias_grad(x, w), x, w)
    with sequential_float32_sums():
        plain = _error(_bias_grad(x, w), x, w)
    assert wide <= 2.0 ** -24  # one rounding of the float64 sum
    assert plain > 10 * wide, (plain, wide)


def test_forward_bits_and_shapes_unchanged():
    rng = np.random.default_rng(1)
    x = jt.array(rng.standard_normal((3, 4, 5)).astype(np.float32))
    g = jt.array(rng.standard_normal((4, 1)).astype(np.float32))
    for op in (lambda a, c: a + c, lambda a, c: a * c, lambda a, c: a / c, lambda a, c: c - a,
               lambda a, c: c.expand_as(a) * 1.0, lambda a, c: c.expand(3, 4, 5) + 0.0,
               lambda a, c: shims.broadcast_to(c, (3, 4, 5)) + 0.0):
        y = op(x, g)
        with sequential_float32_sums():
            ref = op(x, g)
        assert y.dtype == ref.dtype and tuple(y.shape) == tuple(ref.shape)
        assert np.array_equal(y.numpy(), ref.numpy())


def test_expand_gradient_and_stop_grad_operands():
    c = jt.array(np.float32([[1.5], [2.5]]))
    assert np.array_equal(jt.grad((c.expand(2, 3) * 2.0).sum(), c).numpy(), [[6.0], [6.0]])
    frozen = jt.ones((4,)).stop_grad()
    assert (jt.zeros((3, 4)) + frozen).numpy().sum() == 12


def test_broadcast_shape():
    assert broadcast_shape((4, 1, 5), (3, 1)) == (4, 3, 5)
    assert broadcast_shape((2,), (7, 2)) == (7, 2)
