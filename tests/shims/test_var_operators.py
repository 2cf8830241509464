"""Python operators on Vars as torch computes them (``shims.ops.dtypes``, ``shims.ops.pointwise``).

A Python scalar on the left of a one-element Var (shape ``(1,)``: every full reduction, so
every loss) keeps the Var's dtype, as torch keeps the tensor's.  Jittor 1.3.11 computed
``1.0 * loss64`` in float32: a float64 loss written ``loss_adv + lambda_sty * loss_sty``
(StarGAN v2's ``compute_g_loss``) was rounded to float32, and ``jtport parity``'s float64 judge
of it saw float32 errors.  ``//`` floors (Jittor truncated integers and crashed on floats).
The expected values are Python's own arithmetic."""
import operator

import jittor as jt
import numpy as np
import pytest

import shims  # noqa: F401  (installs the operators)

OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.mod]


def _exact64(values):
    with jt.flag_scope(auto_convert_64_to_32=0):
        return jt.array(np.array(values, np.float64))


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
def test_scalar_first_keeps_float64_exactly(op):
    z = _exact64([0.3])
    got = op(0.1, z)
    assert str(got.dtype) == "float64"
    assert got.numpy()[0] == op(0.1, 0.3)  # bit for bit: neither operand went through float32


def test_a_full_reduction_scaled_on_the_left_stays_float64():
    x = _exact64([0.1, 0.2, 0.7])
    loss = 1.0 * x.sum() + 0.5 * x.mean() - 2 * (x * x).sum()
    assert str(loss.dtype) == "float64" and tuple(loss.shape) == (1,)
    # summation order may differ from Python's: float64 rounding (1e-16), far below float32's 6e-8
    assert abs(loss.numpy()[0] - (1.0 + 0.5 / 3 - 2 * 0.54)) < 1e-15


def test_dtypes_follow_torch():
    half = jt.array(np.array([0.5], np.float32)).float16()
    ints = jt.array(np.array([3], np.int32))
    assert str((1.5 * half).dtype) == "float16"  # Jittor gave float32
    assert str((2 * ints).dtype) == "int32" and (2 * ints).numpy()[0] == 6
    assert str((1.5 * ints).dtype) == "float32" and (1.5 * ints).numpy()[0] == 4.5
    assert str((7 / ints).dtype) == "float32"
    f32 = jt.array(np.array([0.3], np.float32))
    assert str((0.1 * f32).dtype) == "float32" and (0.1 * f32).numpy()[0] == (f32 * 0.1).numpy()[0]


def test_gradient_flows_through_the_reflected_operator():
    w = _exact64([0.5])
    g = jt.grad(2.0 / w + 3.0 * w - 1.0 ** w, w)
    assert str(g.dtype) == "float64" and g.numpy()[0] == -2.0 / 0.25 + 3.0


# % is left out: Jittor's float remainder is a - floor(a / b) * b (0.5 % 0.1 is -2.8e-17 there;
# torch and Python take fmod and give 0.09999999999999998), whatever the scalar's precision
@pytest.mark.parametrize("op", OPS[:-1], ids=lambda f: f.__name__)
def test_float64_constants_stay_exact_on_every_shape(op):
    """Jittor took a Python float beside a float64 Var as float32 (0.1 * 0.25 was 0.02500000037)."""
    x = _exact64([[0.25, 0.5, 3.0]])
    for got, want in ((op(x, 0.1), [op(v, 0.1) for v in (0.25, 0.5, 3.0)]),
                      (op(0.1, x), [op(0.1, v) for v in (0.25, 0.5, 3.0)])):
        assert str(got.dtype) == "float64" and got.numpy()[0].tolist() == want
    nonfinite = (x * float("inf")).numpy()[0].tolist()
    assert nonfinite == [float("inf")] * 3
    y = jt.array(np.array([[2.0]], np.float32))
    assert str((1.0 - y).dtype) == "float32" and (1.0 - y).numpy()[0, 0] == -1.0


def test_floor_division_operator_is_torchs():
    """``//`` on Vars: Jittor truncated integers toward zero (-7 // 2 was -3) and killed the
    process with SIGFPE on floats; torch (and Python) floor."""
    ints = jt.array(np.array([-7, 7, -8, 6, 100000007], np.int32))
    assert (ints // 2).numpy().tolist() == [v // 2 for v in (-7, 7, -8, 6, 100000007)]
    assert (ints // -3).numpy().tolist() == [v // -3 for v in (-7, 7, -8, 6, 100000007)]
    assert (50 // jt.array(np.array([-7, 7], np.int32))).numpy().tolist() == [50 // -7, 50 // 7]
    assert str((ints // 2).dtype) == "int32"
    y = ints.clone()
    y //= -4
    assert y.numpy().tolist() == [v // -4 for v in (-7, 7, -8, 6, 100000007)]
    floats = jt.array(np.array([0.7, -0.7, 2.5], np.float32))
    assert (floats // 0.25).numpy().tolist() == [2.0, -3.0, 10.0]
    assert (1.0 // jt.array(np.array([0.75, -0.75], np.float32))).numpy().tolist() == [1.0, -2.0]
