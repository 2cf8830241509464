"""The in-place forms ``x.op_()`` of ops from every area (``index_add_``, ``squeeze_``,
``logical_and_``, ``dropout_``, ...), torch's ``out=`` (:func:`out_`), ``detach``/``detach_`` and
``x.data`` reads (:func:`data_of`).
Each ``op_`` assigns ``op``'s result to ``x`` (Jittor's ``assign`` rebinds the Var, so the graph
stays differentiable); the element-wise ``op_`` forms live with their ops in :mod:`.pointwise`.
"""
from __future__ import annotations

import math

import jittor as jt
import numpy as np

from . import dropout as dropouts
from . import functional as F
from ._common import _inplace, _size
from .gather_scatter import index_add, index_copy, index_fill, index_put, masked_scatter, put
from .linalg import addbmm, addmm, addmv, addr, renorm
from .pointwise import (_INPLACE, atan2, bitwise_left_shift, bitwise_not, bitwise_right_shift, clamp, clamp_max,
                        clamp_min, digamma, float_power, heaviside, ldexp, lgamma, sinc)
from .reduce import cumprod
from .sampling import feature_dropout
from .shape import squeeze, swapdims

__all__ = [
    "clamp_min_", "clamp_max_", "squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "tril_",
    "triu_", "index_add_", "index_copy_", "index_fill_", "cumsum_", "cumprod_", "float_power_", "ldexp_", "sinc_",
    "heaviside_", "arctan2_", "renorm_", "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_",
    "logical_and_", "logical_or_", "logical_xor_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_",
    "abs_", "sqrt_", "rsqrt_", "sigmoid_", "erf_", "erfinv_", "log2_", "deg2rad_", "rad2deg_", "zero_", "fill_",
    "selu_", "celu_", "threshold_", "elu_", "leaky_relu_", "hardtanh_", "out_", "detach_", "detach", "data_of",
    "addr_",
    "addbmm_", "addmm_", "addmv_", "baddbmm_", "digamma_", "lgamma_", "masked_scatter_", "index_put_", "put_",
    "bitwise_left_shift_", "bitwise_right_shift_", "dropout_", "alpha_dropout_", "feature_dropout_",
    "feature_alpha_dropout_", "resize_", "resize_as_",
]


def _same_dtype(fn):
    def g(a, *args, **kw):
        return fn(a, *args, **kw).cast(a.dtype)
    g.__name__ = fn.__name__
    return g


def _from_functional(name):
    def g(x, *args, **kw):
        return getattr(F, name)(x, *args, **kw)
    g.__name__ = name
    return g


def _dropout(name):
    """``shims.ops.dropout.<name>``."""
    def g(x, p, train):
        return getattr(dropouts, name)(x, p, train)
    g.__name__ = name
    return g


def _elu(x, alpha=1.0, inplace=False):
    return jt.ternary(x > 0, x, alpha * (x.exp() - 1.0))


def _leaky(x, negative_slope=0.01, inplace=False):
    return jt.ternary(x >= 0, x, x * negative_slope)


def _t(x):
    return x if x.ndim < 2 else swapdims(x, 0, 1)


clamp_min_ = _inplace(clamp_min, "clamp_min_")
clamp_max_ = _inplace(clamp_max, "clamp_max_")
squeeze_ = _inplace(squeeze, "squeeze_")
unsqueeze_ = _inplace(lambda x, dim: x.unsqueeze(dim), "unsqueeze_")
t_ = _inplace(_t, "t_")
transpose_ = _inplace(swapdims, "transpose_")
swapdims_ = _inplace(swapdims, "swapdims_")
swapaxes_ = _inplace(swapdims, "swapaxes_")
tril_ = _inplace(lambda x, diagonal=0: x.tril(diagonal), "tril_")
triu_ = _inplace(lambda x, diagonal=0: x.triu(diagonal), "triu_")
index_add_ = _inplace(index_add, "index_add_")
index_copy_ = _inplace(index_copy, "index_copy_")
index_fill_ = _inplace(index_fill, "index_fill_")
cumsum_ = _inplace(lambda x, dim, *, dtype=None: x.cumsum(dim).cast(dtype or x.dtype), "cumsum_")

cumprod_ = _inplace(cumprod, "cumprod_")
float_power_ = _inplace(lambda x, e: float_power(x, e).cast(x.dtype), "float_power_")
ldexp_ = _inplace(_same_dtype(ldexp), "ldexp_")
sinc_ = _inplace(sinc, "sinc_")
heaviside_ = _inplace(heaviside, "heaviside_")
arctan2_ = _inplace(atan2, "arctan2_")
renorm_ = _inplace(renorm, "renorm_")
greater_ = _inplace(_INPLACE["gt_"], "greater_")
greater_equal_ = _inplace(_INPLACE["ge_"], "greater_equal_")
less_ = _inplace(_INPLACE["lt_"], "less_")
less_equal_ = _inplace(_INPLACE["le_"], "less_equal_")
not_equal_ = _inplace(_INPLACE["ne_"], "not_equal_")


class _KeepGrad(jt.Function):
    """The value of ``new`` with the gradient of ``old`` passed through unchanged: torch's
    ``logical_and_``/``or_``/``xor_`` record no backward of their own, so a tensor updated by one
    keeps the gradient path it had (measured: ``y.logical_and_(m)`` back-propagates 1 to ``y``)."""

    def execute(self, old, new):
        return new.clone()

    def grad(self, g):
        return g, None


def _logical(op):
    def f(a, b):
        bb = b.bool() if isinstance(b, jt.Var) else bool(b)
        return _KeepGrad()(a, op(a.bool(), bb).cast(a.dtype).stop_grad())
    return f


logical_and_ = _inplace(_logical(lambda a, b: a & b), "logical_and_")
logical_or_ = _inplace(_logical(lambda a, b: a | b), "logical_or_")
logical_xor_ = _inplace(_logical(lambda a, b: a != b), "logical_xor_")
bitwise_and_ = _inplace(lambda a, b: a & b, "bitwise_and_")
bitwise_or_ = _inplace(lambda a, b: a | b, "bitwise_or_")
bitwise_xor_ = _inplace(lambda a, b: a ^ b, "bitwise_xor_")
bitwise_not_ = _inplace(bitwise_not, "bitwise_not_")
abs_ = _inplace(lambda x: x.abs(), "abs_")
sqrt_ = _inplace(lambda x: x.sqrt(), "sqrt_")
rsqrt_ = _inplace(lambda x: 1.0 / x.sqrt(), "rsqrt_")
sigmoid_ = _inplace(lambda x: x.sigmoid(), "sigmoid_")
erf_ = _inplace(lambda x: x.erf(), "erf_")
erfinv_ = _inplace(lambda x: x.erfinv(), "erfinv_")
log2_ = _inplace(lambda x: x.log() / math.log(2.0), "log2_")
deg2rad_ = _inplace(lambda x: x * (math.pi / 180.0), "deg2rad_")
rad2deg_ = _inplace(lambda x: x * (180.0 / math.pi), "rad2deg_")
zero_ = _inplace(lambda x: jt.zeros_like(x), "zero_")
fill_ = _inplace(lambda x, value: jt.full_like(x, value.item() if isinstance(value, jt.Var) else value), "fill_")
selu_ = _inplace(_from_functional("selu"), "selu_")
celu_ = _inplace(_from_functional("celu"), "celu_")
threshold_ = _inplace(_from_functional("threshold"), "threshold_")
elu_ = _inplace(_elu, "elu_")
leaky_relu_ = _inplace(_leaky, "leaky_relu_")
hardtanh_ = _inplace(lambda x, min_val=-1.0, max_val=1.0: clamp(x, min_val, max_val), "hardtanh_")


def out_(dest, value):
    """torch's ``out=`` argument (the converter writes ``torch.add(a, b, out=c)`` as
    ``shims.out_(c, shims.add(a, b))``): ``dest`` takes ``value`` in place, cast to its dtype
    (every other reference to ``dest`` sees it), and is returned; a tuple ``out=(values,
    indices)`` takes a tuple result element by element."""
    if isinstance(dest, (tuple, list)):
        for d, v in zip(dest, value):
            out_(d, v)
        return type(value)(dest) if isinstance(value, tuple) and type(value) is not tuple else tuple(dest)
    if not isinstance(value, jt.Var):
        value = jt.array(np.asarray(value))
    dest.assign(value if str(value.dtype) == str(dest.dtype) else value.cast(dest.dtype))
    return dest


def detach_(input):
    """``Tensor.detach_``: cut from the graph in place."""
    return input.assign(input.detach())


def detach(input):
    """``torch.detach``."""
    return input.detach()


def data_of(input):
    """torch's ``x.data`` read: ``x`` detached from the graph (Jittor's own ``Var.data`` is a
    numpy array).  Anything that is not a Var (a dataset, a numpy array) gives its own
    ``.data``, so a read the converter could not prove to be a tensor's stays what it was."""
    if isinstance(input, jt.Var):
        return input.detach()
    return input.data


addr_ = _inplace(addr, "addr_")
addbmm_ = _inplace(
    lambda x, b1, b2, *, beta=1, alpha=1: addbmm(x, b1, b2, beta=beta, alpha=alpha), "addbmm_")
addmm_ = _inplace(lambda x, m1, m2, *, beta=1, alpha=1: addmm(x, m1, m2, beta=beta, alpha=alpha), "addmm_")
addmv_ = _inplace(lambda x, m, v, *, beta=1, alpha=1: addmv(x, m, v, beta=beta, alpha=alpha), "addmv_")
baddbmm_ = _inplace(lambda x, b1, b2, *, beta=1, alpha=1: jt.baddbmm(x, b1, b2, beta=beta, alpha=alpha), "baddbmm_")
digamma_ = _inplace(digamma, "digamma_")
lgamma_ = _inplace(lgamma, "lgamma_")
masked_scatter_ = _inplace(masked_scatter, "masked_scatter_")
index_put_ = _inplace(index_put, "index_put_")
put_ = _inplace(put, "put_")
bitwise_left_shift_ = _inplace(bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = _inplace(bitwise_right_shift, "bitwise_right_shift_")
dropout_ = _inplace(_dropout("dropout"), "dropout_")
alpha_dropout_ = _inplace(_dropout("alpha_dropout"), "alpha_dropout_")
feature_dropout_ = _inplace(feature_dropout, "feature_dropout_")
feature_alpha_dropout_ = _inplace(_dropout("feature_alpha_dropout"), "feature_alpha_dropout_")


def _resized(input, *sizes, memory_format=None):
    """``input`` with torch's ``resize_`` shape: its leading elements (row-major) kept, the rest
    new. Torch leaves new elements uninitialised; here they are zeros."""
    shape = _size(sizes)
    n = math.prod(shape)
    have = int(np.prod(input.shape))
    if have == 0:
        return jt.zeros(shape, input.dtype)
    flat = input.reshape(-1)
    if n <= have:
        return flat[:n].reshape(shape) if n else jt.zeros(shape, input.dtype)
    return jt.concat([flat, jt.zeros((n - have,), input.dtype)]).reshape(shape)


resize_ = _inplace(_resized, "resize_")
resize_as_ = _inplace(lambda x, other, memory_format=None: _resized(x, tuple(other.shape)), "resize_as_")
