"""Element-wise ops Jittor lacks or defines differently, comparisons, and the in-place ``x.op_()`` forms."""
from __future__ import annotations

import math
from typing import Optional

import jittor as jt
import numpy as np

from ..grad_mode import defer_sync
from ._common import _FLOAT_DTYPES, _inplace, _is_int, _scaled, exact_scalar, scalar_dtype
from .shape import where
from .tie_grads import maximum, minimum

__all__ = ['maximum', 'minimum',
           'clip', 'fix', 'addcmul', 'addcdiv', 'lerp', 'exp2', 'clamp', 'logaddexp', 'xlogy', 'hypot', 'sign', 'frac',
           'trunc', 'fmod', 'remainder', 'neg', 'log10', 'log1p', 'expm1', 'relu', 'reciprocal', 'square', 'sgn',
           'logit', 'erfc', 'add', 'sub', 'true_divide', 'div', 'floor_divide', 'atan2', 'fmax', 'fmin', 'copysign',
           'eq', 'lt', 'le', 'gt', 'ge', 'copy_', 'where_self', 'clamp_min', 'clamp_max', 'nan_to_num', 'random_',
           'bernoulli', 'bernoulli_', 'ldexp', 'logaddexp2', 'heaviside', 'float_power', 'sinc', 'signbit', 'positive',
           'arctan2', 'rsub', 'bitwise_not', 'isclose', 'allclose', 'isin', 'bitwise_left_shift', 'bitwise_right_shift',
           'digamma', 'lgamma', 'nextafter']


def nextafter(input, other):
    """``torch.nextafter``: the next float of ``input``'s dtype after ``input`` towards ``other``,
    elementwise (broadcast). Computed by numpy on the values (Jittor has no bit casts); torch
    defines no gradient for it, so the result is stop-grad."""
    a = input.numpy()
    b = other.numpy() if isinstance(other, jt.Var) else np.asarray(other)
    return jt.array(np.nextafter(a, b.astype(a.dtype, copy=False))).stop_grad()


def addcmul(input, tensor1, tensor2, *, value=1):
    """``torch.addcmul``: ``input + value * tensor1 * tensor2``."""
    return input + _scaled(tensor1 * tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``torch.addcdiv``: ``input + value * tensor1 / tensor2``."""
    return input + _scaled(tensor1 / tensor2, value)


def lerp(input, end, weight):
    """``torch.lerp`` as torch computes it: ``input + w * (end - input)`` where ``|w| < 0.5``,
    else ``end - (end - input) * (1 - w)`` (exact at ``w = 1``); a number ``weight`` of a
    float32 ``input`` is a float32 scalar (torch's opmath), so ``1 - w`` is rounded as torch's."""
    diff = end - input
    if isinstance(weight, jt.Var):
        return jt.where(weight.abs() < 0.5, input + weight * diff, end - diff * (1 - weight))
    if str(input.dtype) in ("float32", "float16", "bfloat16"):
        weight = float(np.float32(weight))
    return input + weight * diff if abs(weight) < 0.5 else end - diff * (1.0 - weight)


def exp2(input):
    """``torch.exp2``: ``2 ** input``."""
    return (input * math.log(2.0)).exp()


def clamp(input, min=None, max=None):
    """``torch.clamp``/``clip`` with ``min``/``max`` (numbers or tensors; either may be None).
    At a number bound the gradient is zero, as torch's; a tensor bound equal to ``input``
    shares it half and half, as torch's ``maximum``/``minimum``."""
    y = input
    if min is not None:
        y = maximum(y, min) if isinstance(min, jt.Var) else jt.maximum(y, jt.full_like(y, min))
    if max is not None:
        y = minimum(y, max) if isinstance(max, jt.Var) else jt.minimum(y, jt.full_like(y, max))
    return y


def logaddexp(input, other):
    """``torch.logaddexp``, stable for large magnitudes."""
    m = jt.maximum(input, other)
    return m + (-(input - other).abs()).exp().add(1.0).log()


def xlogy(input, other):
    """``torch.xlogy``: 0 where ``input == 0``."""
    return jt.ternary(input == 0, jt.zeros_like(input), input * other.log())


def hypot(input, other):
    """``torch.hypot``."""
    return (input * input + other * other).sqrt()


def sign(input):
    """``torch.sign`` (0 at 0), keeping the input dtype."""
    return (input > 0).cast(input.dtype) - (input < 0).cast(input.dtype)


def trunc(input):
    """``torch.trunc``: rounds toward zero, keeping the dtype."""
    return jt.ternary(input >= 0, input.floor(), input.ceil())


def frac(input):
    """``torch.frac``: ``x - trunc(x)``."""
    return input - trunc(input).stop_grad()


def fmod(input, other):
    """``torch.fmod``: the remainder has the sign of the dividend (C fmod)."""
    return input - trunc(input / other).stop_grad() * other


def remainder(input, other):
    """``torch.remainder``: the remainder has the sign of the divisor (Python %)."""
    return input - (input / other).floor().stop_grad() * other


def neg(input):
    """``torch.neg``/``negative``."""
    return -input


def log10(input):
    """``torch.log10``."""
    return input.log() / math.log(10.0)


def log1p(input):
    """``torch.log1p``, accurate for tiny inputs: ``log(1+x) * x / ((1+x)-1)``."""
    u = input + 1.0
    d = u - 1.0
    return jt.ternary(d == 0, input, u.log() * input / jt.ternary(d == 0, jt.ones_like(d), d))


def expm1(input):
    """``torch.expm1``, accurate for tiny inputs: ``(u-1) * x / log(u)`` with ``u = exp(x)``."""
    u = input.exp()
    lu = u.log()
    ok = (u != 1.0) & (lu != 0)
    return jt.ternary(ok, (u - 1.0) * input / jt.ternary(ok, lu, jt.ones_like(lu)), input)


def relu(input):
    """``torch.relu``."""
    return jt.maximum(input, jt.zeros_like(input))


def reciprocal(input):
    """``torch.reciprocal``."""
    return 1.0 / input


def square(input):
    """``torch.square``."""
    return input * input


def sgn(input):
    """``torch.sgn`` for real tensors (= sign)."""
    return sign(input)


def logit(input, eps: Optional[float] = None):
    """``torch.logit``: ``log(p / (1 - p))``, p clamped to [eps, 1-eps] when eps is given."""
    p = input if eps is None else clamp(input, eps, 1.0 - eps)
    return (p / (1.0 - p)).log()


def erfc(input):
    """``torch.erfc``: ``1 - erf(x)``."""
    return 1.0 - input.erf()


def add(input, other, *, alpha=1):
    """``torch.add`` with ``alpha``: ``input + alpha * other``."""
    return input + _scaled(other, alpha)


def sub(input, other, *, alpha=1):
    """``torch.sub``/``subtract`` with ``alpha``: ``input - alpha * other``."""
    return input - _scaled(other, alpha)


def true_divide(input, other):
    """``torch.true_divide``/``div``: always a float result."""
    if _is_int(input) and (not isinstance(other, jt.Var) or _is_int(other)):
        input = input.float32()
    return input / other


def div(input, other, *, rounding_mode=None):
    """``torch.div`` with ``rounding_mode`` None, 'trunc' or 'floor'."""
    q = true_divide(input, other)
    if rounding_mode is None:
        return q
    q = trunc(q) if rounding_mode == "trunc" else q.floor()
    return q.cast(input.dtype) if _is_int(input) else q


def floor_divide(input, other):
    """``torch.floor_divide``: rounds toward minus infinity (torch >= 1.13)."""
    return div(input, other, rounding_mode="floor")


# Jittor 1.3.11's ``//`` on Vars: integers truncate toward zero (-7 // 2 is -3; torch and Python
# give -4) and floats kill the process with SIGFPE (measured, any shape).  torch's ``//`` is
# floor_divide; these operators give it: integers exactly (Jittor's quotient, corrected where
# the remainder's sign differs from the divisor's), floats as floor_divide.
_C_FLOORDIV = jt.Var.__floordiv__


def _floor_operator(a, b):
    """``a // b`` for a Var ``a`` and a Var or Python number ``b``, as torch computes it."""
    b_int = _is_int(b) if isinstance(b, jt.Var) else isinstance(b, int)
    if not (_is_int(a) and b_int):
        return floor_divide(a, b)
    q = _C_FLOORDIV(a, b)
    r = a - q * b
    if isinstance(b, jt.Var):  # noqa: SIM108 (a nested conditional expression reads worse)
        off = (r < 0) != (b < 0)
    else:
        off = (r > 0) if b < 0 else (r < 0)
    return q - ((r != 0) & off).cast(q.dtype)


def _floordiv(self, other):
    if not isinstance(other, (jt.Var, int, float)) or isinstance(other, bool) or str(self.dtype) == "bool":
        return _C_FLOORDIV(self, other)
    return _floor_operator(self, other)


def _rfloordiv(self, other):
    if type(other) not in (int, float) or str(self.dtype) == "bool":
        return NotImplemented
    return _floor_operator(exact_scalar(other, scalar_dtype(self, other)), self)


if not getattr(jt.Var.__floordiv__, "_shims", False):
    _floordiv.__doc__ = _rfloordiv.__doc__ = "torch's ``//``: floor division (shims.ops.pointwise)"
    _floordiv._shims = True
    jt.Var.__floordiv__, jt.Var.__rfloordiv__ = _floordiv, _rfloordiv


def atan2(input, other):
    """``torch.atan2``: ``atan(y / x)`` moved to the right quadrant (Jittor's atan2 is off by
    up to 5e-4 relative, measured; there is no ``Var.atan2``)."""
    y, x = input, other
    base = (y / jt.ternary(x == 0, jt.ones_like(x), x)).atan()
    half = jt.ternary(y > 0, jt.full_like(base, math.pi / 2),
                      jt.ternary(y < 0, jt.full_like(base, -math.pi / 2), jt.zeros_like(base)))
    left = jt.ternary(y >= 0, base + math.pi, base - math.pi)
    return jt.ternary(x > 0, base, jt.ternary(x < 0, left, half))


def fmax(input, other):
    """``torch.fmax``: maximum ignoring NaN."""
    return jt.ternary(input.isnan(), other, jt.ternary(other.isnan(), input, maximum(input, other)))


def fmin(input, other):
    """``torch.fmin``: minimum ignoring NaN."""
    return jt.ternary(input.isnan(), other, jt.ternary(other.isnan(), input, minimum(input, other)))


def copysign(input, other):
    """``torch.copysign``."""
    neg_ = other < 0 if isinstance(other, jt.Var) else jt.full_like(input, float(other) < 0).bool()
    return jt.ternary(neg_, -input.abs(), input.abs())


def _cmp(name, op):
    def f(input, other):
        return op(input, other)
    f.__name__ = name
    f.__doc__ = f"``torch.{name}`` (bool result)."
    return f


eq = _cmp("eq", lambda a, b: a == b)
lt = _cmp("lt", lambda a, b: a < b)
le = _cmp("le", lambda a, b: a <= b)
gt = _cmp("gt", lambda a, b: a > b)
ge = _cmp("ge", lambda a, b: a >= b)


_INPLACE = {
    "neg_": neg, "negative_": neg, "exp_": lambda x: x.exp(), "log_": lambda x: x.log(),
    "log10_": log10, "log1p_": log1p, "expm1_": expm1, "sin_": lambda x: x.sin(),
    "cos_": lambda x: x.cos(), "tan_": lambda x: x.tan(), "asin_": lambda x: x.asin(),
    "acos_": lambda x: x.acos(), "atan_": lambda x: x.atan(), "sinh_": lambda x: x.sinh(),
    "cosh_": lambda x: x.cosh(), "tanh_": lambda x: x.tanh(), "asinh_": lambda x: x.asinh(),
    "acosh_": lambda x: x.acosh(), "atanh_": lambda x: x.atanh(), "relu_": relu,
    "floor_": lambda x: x.floor(), "ceil_": lambda x: x.ceil(), "round_": lambda x: x.round(),
    "trunc_": trunc, "frac_": frac, "sign_": sign, "exp2_": exp2, "reciprocal_": reciprocal,
    "square_": square, "sgn_": sgn, "logit_": logit, "erfc_": erfc, "fix_": trunc,
    "absolute_": lambda x: x.abs(), "arcsin_": lambda x: x.asin(), "arccos_": lambda x: x.acos(),
    "arctan_": lambda x: x.atan(), "arcsinh_": lambda x: x.asinh(),
    "arccosh_": lambda x: x.acosh(), "arctanh_": lambda x: x.atanh(),
    "div_": div, "true_divide_": true_divide, "maximum_": jt.maximum, "minimum_": jt.minimum,
    "atan2_": atan2, "remainder_": remainder, "fmod_": fmod, "floor_divide_": floor_divide,
    "hypot_": hypot, "xlogy_": xlogy, "subtract_": sub, "divide_": div, "add_": add,
    "sub_": sub, "copysign_": copysign, "lerp_": lerp, "addcmul_": addcmul,
    "addcdiv_": addcdiv, "clamp_": clamp, "clip_": clamp,
    "eq_": lambda a, b: (a == b).cast(a.dtype), "ne_": lambda a, b: (a != b).cast(a.dtype),
    "lt_": lambda a, b: (a < b).cast(a.dtype), "le_": lambda a, b: (a <= b).cast(a.dtype),
    "gt_": lambda a, b: (a > b).cast(a.dtype), "ge_": lambda a, b: (a >= b).cast(a.dtype),
    "logical_not_": lambda a: a.logical_not().cast(a.dtype),
    "nan_to_num_": lambda a, nan=0.0, posinf=None, neginf=None: nan_to_num(a, nan, posinf, neginf),
}
for _n, _f in _INPLACE.items():
    globals()[_n] = _inplace(_f, _n)
__all__ += list(_INPLACE)

def copy_(input, src, non_blocking: bool = False):
    """``Tensor.copy_(src)``: ``input`` takes ``src``'s values (broadcast to its shape, cast to
    its dtype) in place; gradients flow to ``src`` as in torch.

    Under ``no_grad`` (the EMA idiom: ``p_ema.copy_(beta * p_ema + (1 - beta) * p)`` every step)
    the written Var is synced when the ``no_grad`` block exits, together with every other Var
    written there (at once outside a block).  Jittor would keep the write pending until the Var
    is read, and an EMA copy read only at checkpoints grows the live graph every step until
    memory runs out (jittor_gaps X5; HiSD's port hit it).  A Var that required grad keeps requiring it
    (Jittor's writes under ``no_grad`` stop it; torch's ``copy_`` does not).

    A Var copied as it is (same shape and dtype) is cloned first: assigning a Var's own node
    chains the two Vars, and when the source is assigned to again later (training_stats'
    counters in StyleGAN2-ADA: ``cumulative.add_(...)`` then ``mine.copy_(cumulative)`` every
    step) the live graph grows by one op per step although both are read."""
    value = src if isinstance(src, jt.Var) else jt.array(src)
    if tuple(value.shape) != tuple(input.shape):
        value = value.broadcast(tuple(input.shape))
    elif value is src and value.dtype == input.dtype:
        value = value.clone()
    trainable = not input.is_stop_grad()
    input.assign(value.cast(input.dtype))
    if jt.flags.no_grad:
        defer_sync(input, trainable)
    return input


def where_self(input, condition, other):
    """``Tensor.where(condition, other)``: ``torch.where(condition, input, other)``."""
    return where(condition, input, other)


def clamp_min(input, min):
    """``Tensor.clamp_min``."""
    return clamp(input, min=min)


def clamp_max(input, max):
    """``Tensor.clamp_max``."""
    return clamp(input, max=max)


def nan_to_num(input, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None, *,
               out: Optional[jt.Var] = None):
    """``torch.nan_to_num``: NaN -> nan, +inf -> posinf (default: dtype max), -inf -> neginf.
    ``out=`` (StyleGAN2-ADA: ``nan_to_num(p.grad, ..., out=p.grad)``) takes the result in place."""
    big = float(np.finfo(str(input.dtype)).max) if str(input.dtype) in _FLOAT_DTYPES[:3] else 3.4028234663852886e38
    y = jt.ternary(input.isnan(), jt.full_like(input, nan), input)
    y = jt.ternary(y == float("inf"), jt.full_like(y, big if posinf is None else posinf), y)
    y = jt.ternary(y == float("-inf"), jt.full_like(y, -big if neginf is None else neginf), y)
    return y if out is None else out.assign(y)


def random_(input, low: int = 0, high: Optional[int] = None):
    """``Tensor.random_(from, to)``: integers in [from, to) (``random_(to)``: [0, to))."""
    if high is None:
        low, high = 0, low
    return input.assign(jt.randint(int(low), int(high), shape=tuple(input.shape)).cast(input.dtype))


def bernoulli(input, p: Optional[float] = None):
    """``torch.bernoulli(probs)``: 1 with probability ``probs`` elementwise."""
    probs = input if p is None else jt.full_like(input, p)
    return (jt.rand(tuple(input.shape)) < probs).cast(input.dtype)


def bernoulli_(input, p=0.5):
    """``Tensor.bernoulli_(p)``."""
    probs = p if isinstance(p, jt.Var) else jt.full_like(input, float(p))
    return input.assign((jt.rand(tuple(input.shape)) < probs).cast(input.dtype))


def clip(input, min=None, max=None):
    """``Tensor.clip``: torch's alias of :func:`clamp` (its own name, so a receiver that is no
    tensor gets its own ``clip``: numpy's)."""
    return clamp(input, min, max)


def fix(input):
    """``Tensor.fix``: torch's alias of :func:`trunc`."""
    return trunc(input)


def ldexp(input, other):
    """``torch.ldexp``: ``input * 2 ** other`` (float result)."""
    x = input.float32() if _is_int(input) else input
    return x * (2.0 ** (other.cast(x.dtype) if isinstance(other, jt.Var) else other))


def logaddexp2(input, other):
    """``torch.logaddexp2``: ``log2(2^a + 2^b)``, stable."""
    m = jt.maximum(input, other)
    return m + (1.0 + (-(input - other).abs() * math.log(2.0)).exp()).log() / math.log(2.0)


def heaviside(input, values):
    """``torch.heaviside``: 0 below 0, ``values`` at 0, 1 above."""
    v = values if isinstance(values, jt.Var) else jt.array(values)
    return jt.ternary(input > 0, jt.ones_like(input), jt.ternary(input < 0, jt.zeros_like(input),
                                                                 v.cast(input.dtype).broadcast(tuple(input.shape))))


def float_power(input, exponent):
    """``torch.float_power``: the power in float64."""
    base = input.float64() if isinstance(input, jt.Var) else jt.array(float(input)).float64()
    e = exponent.float64() if isinstance(exponent, jt.Var) else float(exponent)
    return base ** e


def sinc(input):
    """``torch.sinc``: ``sin(pi x) / (pi x)``, 1 at 0."""
    x = input * math.pi
    safe = jt.ternary(input == 0, jt.ones_like(x), x)
    return jt.ternary(input == 0, jt.ones_like(x), safe.sin() / safe)


def signbit(input):
    """``torch.signbit`` (negative numbers; -0.0 is not told apart in Jittor)."""
    return input < 0


def positive(input):
    """``torch.positive``."""
    return input


def arctan2(input, other):
    """``torch.arctan2`` (= ``atan2``)."""
    return atan2(input, other)


def rsub(input, other, *, alpha=1):
    """``torch.rsub``: ``other - alpha * input``."""
    return other - (input if alpha == 1 else input * alpha)


def bitwise_not(input):
    """``torch.bitwise_not`` (logical not for bool)."""
    if str(input.dtype) == "bool":
        return input.logical_not()
    return -input - 1


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``torch.isclose``."""
    o = other if isinstance(other, jt.Var) else jt.array(other).cast(input.dtype)
    close = (input - o).abs() <= atol + rtol * o.abs()
    close = close | (input == o)
    if equal_nan:
        close = close | (input.isnan() & o.isnan())
    return close


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """``torch.allclose`` (a Python bool)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """``torch.isin``."""
    e = elements if isinstance(elements, jt.Var) else jt.array(np.asarray(elements))
    t = test_elements if isinstance(test_elements, jt.Var) else jt.array(np.asarray(test_elements))
    hit = (e.reshape(-1, 1) == t.reshape(1, -1)).any(1).reshape(tuple(e.shape))
    return hit.logical_not() if invert else hit


def bitwise_left_shift(input, other):
    """``torch.bitwise_left_shift`` of integers: ``input * 2 ** other``."""
    sh = other if isinstance(other, jt.Var) else jt.array(np.asarray(other, np.int64)).cast(input.dtype)
    return input * (jt.ones_like(sh) * 2) ** sh.cast(input.dtype)


def bitwise_right_shift(input, other):
    """``torch.bitwise_right_shift`` of integers (arithmetic: rounds toward minus infinity)."""
    sh = other if isinstance(other, jt.Var) else jt.array(np.asarray(other, np.int64)).cast(input.dtype)
    div = (jt.ones_like(sh) * 2) ** sh.cast(input.dtype)
    # Jittor's integer // truncates toward zero; a right shift floors (exact in float64 for int32)
    return (input.float64() / div.float64()).floor().cast(input.dtype)


def digamma(input):
    """``torch.digamma`` (Jittor's ``digamma`` is a Function class: ``jt.digamma()(x)``)."""
    return jt.digamma()(input)


class _LGamma(jt.Function):
    """Jittor's ``lgamma`` Function with the gradient it lacks (``d lgamma(x)/dx = digamma(x)``):
    differentiating ``jt.lgamma()(x)`` raises ``'lgamma' object has no attribute 'grad'``."""

    def execute(self, x):
        self.x = x
        return jt.lgamma()(x)

    def grad(self, grad_output):
        return grad_output * jt.digamma()(self.x)


def lgamma(input):
    """``torch.lgamma``, differentiable (Jittor's ``lgamma`` is a Function class without a gradient)."""
    return _LGamma()(input)


if not hasattr(jt.Var, "__invert__"):
    # ``~mask`` (torch: logical not of a bool tensor, bitwise not of an integer one); Jittor's
    # Var has no unary ``~`` and raises "bad operand type for unary ~"
    jt.Var.__invert__ = bitwise_not
