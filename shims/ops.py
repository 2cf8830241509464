"""Tensor ops with torch's exact semantics, built from Jittor ops (forward and gradient).

Each function reproduces one torch call whose Jittor namesake means something else (see
``docs/API_COVERAGE.md`` for the parity case behind every one).  They are plain compositions
of Jittor ops: no Python loop over elements and no host round-trip, so they stay lazy,
fuse, and differentiate (first and higher order) like native ops.

Scalars: Jittor has no 0-d Vars.  Where torch returns a 0-d tensor (a full reduction), these
shims return shape ``(1,)``, the only thing Jittor can give; the API-parity harness compares
such results as scalars and says so in the row's report.

Integers: torch sums/products of bool and integer tensors in int64.  Jittor keeps the input
dtype (a uint8 sum of 300 ones is 44), so these shims accumulate integer inputs in int64 too.
"""
from __future__ import annotations

import builtins as _b
import math
from typing import Optional, Sequence, Tuple, Union

import jittor as jt
import numpy as np

__all__ = [
    "sum", "mean", "prod", "var", "std", "var_mean", "std_mean", "logsumexp",
    "norm", "linalg_norm", "vector_norm", "matrix_norm", "amax", "amin", "max", "min",
    "argmax", "argmin", "cumprod", "all", "any", "count_nonzero",
    "mm", "bmm", "mv", "dot", "addmm", "addmv", "addbmm", "addcmul", "addcdiv", "lerp",
    "exp2", "logsigmoid", "normalize", "clamp", "index_select", "roll", "argsort", "squeeze",
    "where", "nonzero", "t", "swapaxes", "movedim", "narrow", "flatten", "unflatten",
    "logaddexp", "xlogy", "hypot", "sign", "frac", "trunc", "fmod", "remainder",
    "softmax", "log_softmax", "linspace", "arange", "full", "cdist", "dist", "trace",
    "diagonal", "tensordot", "kron", "cosine_similarity", "pairwise_distance",
]

Dim = Union[None, int, Sequence[int]]

_INT_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _is_int(x) -> bool:
    return str(x.dtype) in _INT_TYPES


def _dims(x, dim: Dim) -> Tuple[int, ...]:
    """``dim`` (None, int or sequence, negatives allowed) as sorted non-negative dims."""
    nd = x.ndim
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return tuple(range(nd))
        dims = dim
    else:
        dims = (dim,)
    out = []
    for d in dims:
        d = int(d)
        if not -_b.max(nd, 1) <= d < _b.max(nd, 1):
            raise IndexError(f"dimension {d} out of range for a tensor of {nd} dims")
        out.append(d % _b.max(nd, 1))
    return tuple(sorted(set(out)))


def _count(x, dims: Tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= int(x.shape[d])
    return n


def _keep(y, x, dims: Tuple[int, ...]):
    """Reshape a ``keepdims=False`` reduction of ``x`` over ``dims`` to keepdim form."""
    shape = [1 if i in dims else int(s) for i, s in enumerate(x.shape)]
    return y.reshape(shape)


def _cast(x, dtype):
    return x if dtype is None else x.cast(dtype)


def sum(input, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.sum``: dim as int or tuple (keyword too), ``keepdim``, ``dtype``; integer and
    bool inputs sum in int64; a full reduction has shape (1,)."""
    x = _cast(input, dtype)
    if dtype is None and _is_int(x):
        x = x.int64()
    dims = _dims(x, dim)
    return x.sum(dims, keepdims=keepdim) if dims else x.clone()


def mean(input, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.mean`` with dim as int or tuple, ``keepdim`` and ``dtype``."""
    x = _cast(input, dtype)
    if _is_int(x):
        raise TypeError("mean(): torch cannot average an integer tensor; pass dtype= or call .float()")
    dims = _dims(x, dim)
    return x.mean(dims, keepdims=keepdim) if dims else x.clone()


def prod(input, dim: Optional[int] = None, keepdim: bool = False, *, dtype=None):
    """``torch.prod``: integer inputs multiply in int64; a full product has shape (1,)."""
    x = _cast(input, dtype)
    if dtype is None and _is_int(x):
        x = x.int64()
    dims = _dims(x, dim)
    return x.prod(dims, keepdims=keepdim) if dims else x.clone()


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return float(correction)
    if unbiased is None:
        return 1.0
    return 1.0 if unbiased else 0.0


def _var_parts(input, dim, unbiased, keepdim, correction):
    # torch's legacy overload ``var(x, unbiased)``: a bool in dim's place means unbiased.
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    x = input
    dims = _dims(x, dim)
    n = _count(x, dims)
    m = x.mean(dims, keepdims=True)
    d = x - m
    # Two-pass variance, no clamp (Jittor's std clamps the variance at 1e-6).
    ss = (d * d).sum(dims, keepdims=keepdim)
    denom = _b.max(n - _correction(unbiased, correction), 0.0)
    v = ss / denom if denom > 0 else ss / jt.zeros_like(ss)
    mean_ = m if keepdim else m.reshape(ss.shape)
    return v, mean_


def var(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction: Optional[float] = None):
    """``torch.var``: unbiased by default (Jittor's is biased), dim as int or tuple,
    ``keepdim``, ``unbiased``/``correction``, no variance clamp."""
    return _var_parts(input, dim, unbiased, keepdim, correction)[0]


def std(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction: Optional[float] = None):
    """``torch.std``: the square root of :func:`var` (no 1e-6 variance clamp)."""
    return var(input, dim, unbiased, keepdim, correction=correction).sqrt()


def var_mean(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Optional[float] = None):
    """``torch.var_mean``: ``(var, mean)`` with :func:`var`'s semantics."""
    return _var_parts(input, dim, unbiased, keepdim, correction)


def std_mean(input, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Optional[float] = None):
    """``torch.std_mean``: ``(std, mean)``."""
    v, m = _var_parts(input, dim, unbiased, keepdim, correction)
    return v.sqrt(), m


def amax(input, dim: Dim = (), keepdim: bool = False):
    """``torch.amax``: maximum over ``dim`` (all dims when empty)."""
    dims = _dims(input, dim)
    return input.max(dims, keepdims=keepdim)


def amin(input, dim: Dim = (), keepdim: bool = False):
    """``torch.amin``: minimum over ``dim`` (all dims when empty)."""
    dims = _dims(input, dim)
    return input.min(dims, keepdims=keepdim)


def logsumexp(input, dim: Dim, keepdim: bool = False):
    """``torch.logsumexp``, shifted by the max so that ±1000 stays finite."""
    dims = _dims(input, dim)
    m = input.max(dims, keepdims=True).stop_grad()
    m = jt.ternary(m.isinf(), jt.zeros_like(m), m)
    y = (input - m).exp().sum(dims, keepdims=True).log() + m
    return y if keepdim else y.reshape([int(s) for i, s in enumerate(input.shape) if i not in dims] or [1])


class _ValuesIndices(tuple):
    """torch's ``(values, indices)`` named tuple (``torch.return_types.max`` & co)."""

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _max_min(input, dim, keepdim, other, op):
    if other is not None and not isinstance(other, (int, bool)):
        return jt.maximum(input, other) if op == "max" else jt.minimum(input, other)
    if other is not None:  # torch.max(x, 1): the second positional is dim
        dim = other
    if dim is None:
        return input.max() if op == "max" else input.min()
    idx, val = input.argmax(dim, keepdims=keepdim) if op == "max" else input.argmin(dim, keepdims=keepdim)
    # Recompute values through max/min so that their gradient flows like torch's.
    val = input.max(dim, keepdims=keepdim) if op == "max" else input.min(dim, keepdims=keepdim)
    return _ValuesIndices((val, idx))


def max(input, dim=None, keepdim: bool = False, *, other=None):
    """``torch.max``: full max; ``max(x, dim)`` -> ``(values, indices)``; ``max(x, y)`` -> maximum."""
    return _max_min(input, None, keepdim, dim, "max") if dim is not None else _max_min(input, None, keepdim, other, "max")


def min(input, dim=None, keepdim: bool = False, *, other=None):
    """``torch.min``: full min; ``min(x, dim)`` -> ``(values, indices)``; ``min(x, y)`` -> minimum."""
    return _max_min(input, None, keepdim, dim, "min") if dim is not None else _max_min(input, None, keepdim, other, "min")


def argmax(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.argmax``: indices only (Jittor returns ``(indices, values)``); ``dim=None`` is
    the index into the flattened tensor."""
    if dim is None:
        return input.reshape(-1).argmax(0)[0]
    return input.argmax(dim, keepdims=keepdim)[0]


def argmin(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.argmin``: indices only; ``dim=None`` indexes the flattened tensor."""
    if dim is None:
        return input.reshape(-1).argmin(0)[0]
    return input.argmin(dim, keepdims=keepdim)[0]


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """``torch.argsort``: the indices (Jittor returns ``(indices, values)``)."""
    return input.argsort(dim, descending=descending)[0]


def cumprod(input, dim: int, *, dtype=None):
    """``torch.cumprod``, right for negative inputs and zeros (Jittor's is exp(cumsum(log x)),
    NaN below zero).  Computed as a product over a lower-triangular mask: O(n^2) along
    ``dim``, no loop."""
    x = _cast(input, dtype)
    d = _dims(x, dim)[0]
    n = int(x.shape[d])
    xt = x.transpose(d, -1) if d != x.ndim - 1 else x
    # rows[..., i, j] = x[..., j] if j <= i else 1
    tri = jt.arange(n).reshape(n, 1) >= jt.arange(n).reshape(1, n)
    ones = jt.ones_like(xt).unsqueeze(-2)
    rows = jt.ternary(tri, xt.unsqueeze(-2) * jt.ones((n, 1), dtype=xt.dtype), ones)
    y = rows.prod(-1)
    return y.transpose(d, -1) if d != x.ndim - 1 else y


def all(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.all`` (bool result; a full reduction has shape (1,)); Jittor's takes no keepdim."""
    b = input.bool().int32()
    dims = _dims(b, dim)
    return b.sum(dims, keepdims=keepdim) == _count(b, dims)


def any(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.any`` (bool result; a full reduction has shape (1,)); Jittor's takes no keepdim."""
    b = input.bool().int32()
    return b.sum(_dims(b, dim), keepdims=keepdim) > 0


def count_nonzero(input, dim: Dim = None):
    """``torch.count_nonzero`` (int64)."""
    return sum((input != 0).int64(), dim)


def _p_norm(x, p, dims, keepdim):
    if p == 2:
        return (x * x).sum(dims, keepdims=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dims, keepdims=keepdim)
    if p in (math.inf, float("inf")):
        return x.abs().max(dims, keepdims=keepdim)
    if p in (-math.inf, float("-inf")):
        return x.abs().min(dims, keepdims=keepdim)
    if p == 0:
        return (x != 0).float32().sum(dims, keepdims=keepdim)
    return (x.abs() ** p).sum(dims, keepdims=keepdim) ** (1.0 / p)


def norm(input, p="fro", dim: Dim = None, keepdim: bool = False, dtype=None):
    """``torch.norm``: the whole tensor by default (Jittor: dim=-1); p = 'fro', 'nuc' is not
    supported, any number including inf/-inf/0/3."""
    x = _cast(input, dtype)
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc') needs singular values: use jt.linalg.svd")
    return _p_norm(x, p, _dims(x, dim), keepdim)


def vector_norm(x, ord=2, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.linalg.vector_norm``: the flattened tensor unless ``dim`` is given."""
    x = _cast(x, dtype)
    return _p_norm(x, ord, _dims(x, dim), keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None):
    """``torch.linalg.matrix_norm`` for ord 'fro', 1, -1, inf, -inf."""
    A = _cast(A, dtype)
    r, c = dim[0] % A.ndim, dim[1] % A.ndim
    if ord == "fro":
        y = (A * A).sum((r, c), keepdims=True).sqrt()
    elif ord in (1, -1):
        s = A.abs().sum(r, keepdims=True)
        y = s.max(c, keepdims=True) if ord == 1 else s.min(c, keepdims=True)
    elif ord in (math.inf, -math.inf):
        s = A.abs().sum(c, keepdims=True)
        y = s.max(r, keepdims=True) if ord > 0 else s.min(r, keepdims=True)
    else:
        raise NotImplementedError(f"matrix_norm(ord={ord!r}) needs singular values")
    if keepdim:
        return y
    return y.reshape([int(s) for i, s in enumerate(A.shape) if i not in (r, c)] or [1])


def linalg_norm(A, ord=None, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.linalg.norm``: a vector norm over one dim (or the flattened tensor when
    ``ord`` is None), a matrix norm over two."""
    A = _cast(A, dtype)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim)
        dim = (-1,) if A.ndim == 1 else (-2, -1)
    if isinstance(dim, int) or len(dim) == 1:
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim)
    return matrix_norm(A, "fro" if ord is None else ord, tuple(dim), keepdim)


def mm(input, mat2):
    """``torch.mm``: a 2-D matrix product (Jittor has no ``jt.mm``/``Var.mm``)."""
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mm: both arguments must be 2-D, got {input.ndim}-D and {mat2.ndim}-D")
    return jt.matmul(input, mat2)


def bmm(input, mat2):
    """``torch.bmm``: batched 3-D matrix product (also the missing ``Var.bmm``)."""
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"bmm: both arguments must be 3-D, got {input.ndim}-D and {mat2.ndim}-D")
    return jt.matmul(input, mat2)


def mv(input, vec):
    """``torch.mv``: matrix times vector."""
    return jt.matmul(input, vec.unsqueeze(-1)).squeeze(-1)


def dot(input, other):
    """``torch.dot`` of two 1-D tensors (shape (1,): Jittor has no 0-d Vars)."""
    return (input * other).sum()


def _scaled(x, s):
    return x if s == 1 else x * s


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``torch.addmm``: ``beta * input + alpha * (mat1 @ mat2)``; beta=0 ignores input."""
    prod_ = _scaled(mm(mat1, mat2), alpha)
    return prod_ if beta == 0 else _scaled(input, beta) + prod_


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``torch.addmv``: ``beta * input + alpha * (mat @ vec)``."""
    prod_ = _scaled(mv(mat, vec), alpha)
    return prod_ if beta == 0 else _scaled(input, beta) + prod_


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``torch.addbmm``: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    prod_ = _scaled(bmm(batch1, batch2).sum(0), alpha)
    return prod_ if beta == 0 else _scaled(input, beta) + prod_


def addcmul(input, tensor1, tensor2, *, value=1):
    """``torch.addcmul``: ``input + value * tensor1 * tensor2``."""
    return input + _scaled(tensor1 * tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``torch.addcdiv``: ``input + value * tensor1 / tensor2``."""
    return input + _scaled(tensor1 / tensor2, value)


def lerp(input, end, weight):
    """``torch.lerp``: ``input + weight * (end - input)`` (weight a number or a tensor)."""
    return input + weight * (end - input)


def exp2(input):
    """``torch.exp2``: ``2 ** input``."""
    return (input * math.log(2.0)).exp()


def logsigmoid(input):
    """``F.logsigmoid``, stable for large negative inputs (Jittor's is log(sigmoid(x)))."""
    return jt.minimum(input, 0.0) - (-input.abs()).exp().add(1.0).log()


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``F.normalize``: ``x / max(||x||_p, eps)`` with torch's eps 1e-12 (Jittor: 1e-30)."""
    dims = _dims(input, dim)
    if p == 2:
        # sqrt(max(|x|^2, eps^2)) == max(|x|, eps), with a zero (not NaN) gradient at x == 0
        n = jt.maximum((input * input).sum(dims, keepdims=True), eps * eps).sqrt()
    else:
        n = jt.maximum(_p_norm(input, p, dims, True), eps)
    return input / n


def clamp(input, min=None, max=None):
    """``torch.clamp``/``clip`` with ``min``/``max`` (numbers or tensors; either may be None)."""
    y = input
    if min is not None:
        y = jt.maximum(y, min if isinstance(min, jt.Var) else jt.full_like(y, min))
    if max is not None:
        y = jt.minimum(y, max if isinstance(max, jt.Var) else jt.full_like(y, max))
    return y


def index_select(input, dim: int, index):
    """``torch.index_select`` (Jittor's is wrong for dim >= 1)."""
    d = _dims(input, dim)[0]
    return input[(slice(None),) * d + (index.reshape(-1),)]


def roll(input, shifts, dims=None):
    """``torch.roll``: without ``dims`` it rolls the flattened tensor (Jittor rolls dim 0)."""
    if dims is None:
        return jt.roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    return jt.roll(input, shifts, dims)


def squeeze(input, dim: Dim = None):
    """``torch.squeeze``: a dim whose size is not 1 is left alone (Jittor asserts); tuple dims."""
    dims = _dims(input, dim)
    keep = [int(s) for i, s in enumerate(input.shape) if not (i in dims and int(s) == 1)]
    return input.reshape(keep or [1])


def where(condition, input=None, other=None):
    """``torch.where``: three-argument select (numbers allowed) or, with one argument,
    ``nonzero(as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(input, jt.Var):
        input = jt.full_like(other if isinstance(other, jt.Var) else condition.float32(), input)
    if not isinstance(other, jt.Var):
        other = jt.full_like(input, other)
    return jt.ternary(condition.bool(), input, other)


def nonzero(input, *, as_tuple: bool = False):
    """``torch.nonzero``: (n, ndim) indices, or a tuple of 1-D index tensors."""
    idx = input.nonzero()
    if as_tuple:
        return tuple(idx[:, i] for i in range(input.ndim))
    return idx


def t(input):
    """``torch.t``: transposes a 2-D tensor; 0/1-D unchanged; 3-D and more is an error."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return input.transpose(0, 1) if input.ndim == 2 else input


def swapaxes(input, axis0: int, axis1: int):
    """``torch.swapaxes``/``swapdims``/``transpose`` with negative dims."""
    return input.transpose(axis0 % input.ndim, axis1 % input.ndim)


def movedim(input, source, destination):
    """``torch.movedim``/``moveaxis``."""
    src = [s % input.ndim for s in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [d % input.ndim for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
    order = [i for i in range(input.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return input.permute(order)


def narrow(input, dim: int, start: int, length: int):
    """``torch.narrow``."""
    d = _dims(input, dim)[0]
    start = start % int(input.shape[d])
    return input[(slice(None),) * d + (slice(start, start + length),)]


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """``torch.flatten`` with torch's defaults."""
    if input.ndim == 0:
        return input.reshape(1)
    s, e = start_dim % input.ndim, end_dim % input.ndim
    shape = [int(v) for v in input.shape]
    return input.reshape(shape[:s] + [-1] + shape[e + 1:])


def unflatten(input, dim: int, sizes):
    """``torch.unflatten``."""
    d = dim % input.ndim
    shape = [int(v) for v in input.shape]
    return input.reshape(shape[:d] + list(sizes) + shape[d + 1:])


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


def softmax(input, dim: int, dtype=None):
    """``F.softmax`` over ``dim`` (Jittor's default is the whole tensor), max-shifted."""
    x = _cast(input, dtype)
    e = (x - x.max(dim, keepdims=True).stop_grad()).exp()
    return e / e.sum(dim, keepdims=True)


def log_softmax(input, dim: int, dtype=None):
    """``F.log_softmax`` over ``dim``, max-shifted."""
    x = _cast(input, dtype)
    return x - logsumexp(x, dim, keepdim=True)


def linspace(start, end, steps: int, *, dtype=None):
    """``torch.linspace``: float32 unless ``dtype`` (Jittor gives int32 for steps=1)."""
    if steps == 1:
        y = jt.array([float(start)]).float32()
    else:
        step = (float(end) - float(start)) / (steps - 1)
        i = jt.arange(steps).float32()
        # torch fills the second half from the end so that the last value is exactly ``end``.
        half = steps // 2
        y = jt.ternary(i < half, float(start) + step * i, float(end) - step * (steps - 1 - i))
    return _cast(y, dtype)


def arange(start, end=None, step=1, *, dtype=None):
    """``torch.arange``: float when any bound is a float (Jittor: int32), else int."""
    if end is None:
        start, end = 0, start
    is_float = _b.any(isinstance(v, float) for v in (start, end, step))
    n = _b.max(int(math.ceil((end - start) / step)), 0)
    y = jt.arange(n).float32() * step + start if is_float else jt.arange(start, end, step).int32()
    return _cast(y, dtype)


def full(size, fill_value, *, dtype=None):
    """``torch.full``: the dtype follows the fill value (bool/int/float) unless given."""
    size = tuple(size) if isinstance(size, (list, tuple)) else (size,)
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else "int32" if isinstance(fill_value, int) else "float32"
    return jt.full(size, fill_value, dtype)


def cdist(x1, x2, p: float = 2.0):
    """``torch.cdist``: pairwise p-norm distances between row sets ``(..., P, M)``, ``(..., R, M)``."""
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _p_norm(d, p, (d.ndim - 1,), False)


def dist(input, other, p: float = 2.0):
    """``torch.dist``: the p-norm of ``input - other``."""
    return norm(input - other, p)


def trace(input):
    """``torch.trace`` of a 2-D tensor."""
    return diagonal(input).sum()


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """``torch.diagonal``: the diagonal moves to the last dim."""
    d1, d2 = dim1 % input.ndim, dim2 % input.ndim
    x = movedim(input, (d1, d2), (-2, -1))
    r, c = int(x.shape[-2]), int(x.shape[-1])
    n = _b.max(0, _b.min(r, c - offset) if offset >= 0 else _b.min(r + offset, c))
    rows = jt.arange(n) + _b.max(-offset, 0)
    cols = jt.arange(n) + _b.max(offset, 0)
    return x[..., rows, cols]


def tensordot(a, b, dims=2):
    """``torch.tensordot`` (dims an int or a pair of lists)."""
    if isinstance(dims, int):
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = [d % a.ndim for d in dims[0]], [d % b.ndim for d in dims[1]]
    fa = [i for i in range(a.ndim) if i not in da]
    fb = [i for i in range(b.ndim) if i not in db]
    k = _count(a, tuple(da))
    am = a.permute(fa + da).reshape([_count(a, tuple(fa)), k])
    bm = b.permute(db + fb).reshape([k, _count(b, tuple(fb))])
    return jt.matmul(am, bm).reshape([int(a.shape[i]) for i in fa] + [int(b.shape[i]) for i in fb])


def kron(input, other):
    """``torch.kron`` of two 2-D tensors."""
    (m, n), (p, q) = input.shape, other.shape
    return (input.reshape(m, 1, n, 1) * other.reshape(1, p, 1, q)).reshape(m * p, n * q)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """``F.cosine_similarity``: ``x1.x2 / max(||x1|| ||x2||, eps)``, as torch >= 2.0 computes it."""
    w12 = (x1 * x2).sum(dim)
    n1 = (x1 * x1).sum(dim)
    n2 = (x2 * x2).sum(dim)
    return w12 / jt.maximum(n1 * n2, eps * eps).sqrt()


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``F.pairwise_distance``: ``||x1 - x2 + eps||_p`` over the last dim."""
    return _p_norm(x1 - x2 + eps, p, (_b.max(x1.ndim, x2.ndim) - 1,), keepdim)




# --- pointwise ops Jittor lacks (torch semantics; dtype kept) ---------------------------------

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
    return jt.ternary(input.isnan(), other, jt.ternary(other.isnan(), input, jt.maximum(input, other)))


def fmin(input, other):
    """``torch.fmin``: minimum ignoring NaN."""
    return jt.ternary(input.isnan(), other, jt.ternary(other.isnan(), input, jt.minimum(input, other)))


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


def _inplace(fn, name):
    """The in-place method ``x.<name>(...)``: ``x`` takes the value of ``fn(x, ...)`` (the
    graph stays differentiable: Jittor's ``assign`` rebinds the Var)."""
    def f(input, *args, **kwargs):
        return input.assign(fn(input, *args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"``Tensor.{name}``: in-place ``{fn.__name__}``."
    return f


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
}
for _n, _f in _INPLACE.items():
    globals()[_n] = _inplace(_f, _n)

__all__ += ["neg", "log10", "log1p", "expm1", "relu", "reciprocal", "square", "sgn", "logit",
            "erfc", "add", "sub", "true_divide", "div", "floor_divide", "atan2", "fmax", "fmin",
            "copysign", "eq", "lt", "le", "gt", "ge", *_INPLACE]


def copy_(input, src, non_blocking: bool = False):
    """``Tensor.copy_(src)``: ``input`` takes ``src``'s values (broadcast to its shape, cast to
    its dtype) in place; gradients flow to ``src`` as in torch.

    Under ``no_grad`` (the EMA idiom: ``p_ema.copy_(beta * p_ema + (1 - beta) * p)`` every step)
    the written Var is synced at once.  Jittor would keep the write pending until the Var is
    read, and an EMA copy read only at checkpoints grows the live graph every step until memory
    runs out (jittor_gaps X5; HiSD's port hit it).  A Var that required grad keeps requiring it
    (Jittor's writes under ``no_grad`` stop it; torch's ``copy_`` does not)."""
    value = src if isinstance(src, jt.Var) else jt.array(src)
    if tuple(value.shape) != tuple(input.shape):
        value = value.broadcast(tuple(input.shape))
    trainable = not input.is_stop_grad()
    input.assign(value.cast(input.dtype))
    if jt.flags.no_grad:
        input.sync()
        if trainable:
            input.start_grad()
    return input


__all__ += ["copy_"]


def _var_requires_grad_(self, requires_grad: bool = True):
    """``Tensor.requires_grad_(flag)`` on a Var: ``start_grad()``/``stop_grad()`` in place; returns
    the Var.  Installed as a Var method because the converter cannot tell a tensor from a module
    by name (``x = x.requires_grad_()`` in HiSD's R1; modules have it from ``shims.nn.Module``)."""
    return self.start_grad() if requires_grad else self.stop_grad()


if not hasattr(jt.Var, "requires_grad_"):
    jt.Var.requires_grad_ = _var_requires_grad_


# --- creation -----------------------------------------------------------------------------------

_FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16")


def _device_free(requires_grad: bool, y):
    return y if requires_grad else y.stop_grad()


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False):
    """``torch.tensor``: a copy of ``data`` (nested lists, numbers, numpy arrays, Vars).

    Python floats give float32 and ints int32 (Jittor's integer default; torch: int64), a
    Python scalar gives shape (1,) (Jittor has no 0-d Vars).  ``device`` is ignored
    (placement is global in Jittor)."""
    y = data.clone() if isinstance(data, jt.Var) else jt.array(data)
    if dtype is not None:
        y = y.cast(dtype)
    return _device_free(requires_grad, y)


def as_tensor(data, dtype=None, device=None):
    """``torch.as_tensor``: a Var input is returned as is (cast when ``dtype`` differs); other
    data is copied (Jittor shares no memory with numpy)."""
    if isinstance(data, jt.Var):
        return data if dtype is None else data.cast(dtype)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """``torch.from_numpy`` (a copy; 64-bit arrays become 32-bit under Jittor's default policy)."""
    return jt.array(ndarray)


class _TypedTensorMeta(type):
    """``isinstance(x, torch.FloatTensor)``: a Var of the class's dtype."""

    def __instancecheck__(cls, obj) -> bool:
        # torch.Tensor matches a tensor of any dtype (a float16 Var in StyleGAN2's fp16 blocks)
        dtype = cls.__dict__.get("_instance_dtype", cls._dtype)
        return isinstance(obj, jt.Var) and (dtype is None or str(obj.dtype) == dtype)


def _typed_tensor(dtype):
    class ctor(metaclass=_TypedTensorMeta):
        _dtype = dtype

        def __new__(cls, *args, device=None):
            if len(args) == 1 and not isinstance(args[0], int):
                return jt.array(args[0]).cast(dtype) if not isinstance(args[0], jt.Var) else args[0].cast(dtype)
            return jt.zeros(tuple(int(a) for a in args), dtype=dtype)
    return ctor


Tensor = _typed_tensor("float32")
Tensor.__name__, Tensor.__doc__ = "Tensor", "``torch.Tensor(data)`` / ``torch.Tensor(*sizes)`` (float32; sizes give zeros)."
Tensor._instance_dtype = None  # isinstance(x, torch.Tensor) holds for every dtype
FloatTensor = _typed_tensor("float32")
FloatTensor.__name__, FloatTensor.__doc__ = "FloatTensor", "``torch.FloatTensor`` (float32)."
LongTensor = _typed_tensor("int32")
LongTensor.__name__, LongTensor.__doc__ = "LongTensor", "``torch.LongTensor`` (Jittor's int32 index type)."


def is_tensor(obj) -> bool:
    """``torch.is_tensor``."""
    return isinstance(obj, jt.Var)


def eye(n: int, m: Optional[int] = None, *, dtype=None, device=None, requires_grad: bool = False):
    """``torch.eye`` (float32 unless ``dtype``)."""
    m = n if m is None else m
    y = (jt.arange(n).reshape(n, 1) == jt.arange(m).reshape(1, m)).cast(dtype or "float32")
    return _device_free(requires_grad, y)


def empty_like(input, *, dtype=None, device=None, requires_grad: bool = False):
    """``torch.empty_like`` (zeros: Jittor has no uninitialised allocation)."""
    return _device_free(requires_grad, jt.zeros(input.shape, dtype=dtype or input.dtype))


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None):
    """``torch.logspace``: ``base ** linspace(start, end, steps)``."""
    return _cast(jt.array(float(base)).float32() ** linspace(start, end, steps), dtype)


def where_self(input, condition, other):
    """``Tensor.where(condition, other)``: ``torch.where(condition, input, other)``."""
    return where(condition, input, other)


def clamp_min(input, min):
    """``Tensor.clamp_min``."""
    return clamp(input, min=min)


def clamp_max(input, max):
    """``Tensor.clamp_max``."""
    return clamp(input, max=max)


def nan_to_num(input, nan: float = 0.0, posinf: Optional[float] = None, neginf: Optional[float] = None):
    """``torch.nan_to_num``: NaN -> nan, +inf -> posinf (default: dtype max), -inf -> neginf."""
    big = float(np.finfo(str(input.dtype)).max) if str(input.dtype) in _FLOAT_DTYPES[:3] else 3.4028234663852886e38
    y = jt.ternary(input.isnan(), jt.full_like(input, nan), input)
    y = jt.ternary(y == float("inf"), jt.full_like(y, big if posinf is None else posinf), y)
    return jt.ternary(y == float("-inf"), jt.full_like(y, -big if neginf is None else neginf), y)


__all__ += ["tensor", "as_tensor", "from_numpy", "Tensor", "FloatTensor", "LongTensor", "is_tensor",
            "eye", "empty_like", "logspace", "where_self", "clamp_min", "clamp_max", "nan_to_num"]


def randint(low, high=None, size=None, *, dtype=None, device=None, generator=None, requires_grad: bool = False):
    """``torch.randint(high, size)`` and ``randint(low, high, size)`` (Jittor only takes the
    second form).  Int32 unless ``dtype`` (Jittor's integer default)."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() needs high and size")
    if generator is not None:
        raise TypeError("randint(generator=...): Jittor has one global seed")
    return jt.randint(int(low), int(high), shape=tuple(size), dtype=dtype or "int32")


def median(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.median``: the lower median; with ``dim``, ``(values, indices)`` (Jittor's is
    wrong for dim != 0 and returns values only)."""
    if dim is None:
        flat = input.reshape(-1)
        idx, val = flat.argsort(0)
        return val[(int(flat.shape[0]) - 1) // 2:(int(flat.shape[0]) - 1) // 2 + 1]
    d = _dims(input, dim)[0]
    idx, val = input.argsort(d)
    k = (int(input.shape[d]) - 1) // 2
    sl = (slice(None),) * d + (slice(k, k + 1),)
    v, i = val[sl], idx[sl]
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return _ValuesIndices((v, i))


def sum_to_size(input, *size):
    """``Tensor.sum_to_size``: sum the broadcast dims back to ``size``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    lead = input.ndim - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and int(input.shape[lead + i]) != 1)
    y = input.sum(dims, keepdims=True) if dims else input
    return y.reshape(tuple(size))


__all__ += ["randint", "median", "sum_to_size"]


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


__all__ += ["random_", "bernoulli", "bernoulli_"]


def svd(input, some: bool = True, compute_uv: bool = True):
    """``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^T`` (reduced when ``some``).

    ``jittor.linalg.svd`` returns ``V^T`` and always the reduced factors; ``some=False`` (full
    U and V of a non-square input) and ``compute_uv=False`` are rejected rather than faked.
    Forward only: backpropagating through the result raises (see :class:`_SvdForward`).
    """
    if not some and input.shape[-1] != input.shape[-2]:
        raise NotImplementedError("svd(some=False) of a non-square matrix: Jittor only computes reduced factors")
    if not compute_uv:
        raise NotImplementedError("svd(compute_uv=False): use torch.linalg.svdvals")
    return _SvdForward.apply(input)


class _SvdForward(jt.Function):
    """``torch.svd``'s factors; differentiating through them raises (Jittor's svd gradient is
    wrong: relative error 84 on a reconstruction's gradient), so a wrong gradient never flows."""

    def execute(self, input):
        u, s, vh = jt.linalg.svd(input)
        return u, s, vh.transpose(-1, -2)

    def grad(self, *grads):
        raise NotImplementedError("shims.svd has no gradient: Jittor's svd backward is wrong; "
                                  "compute the SVD on detached tensors")


__all__ += ["svd"]


# --- activations and layers whose jittor.nn form differs ---------------------------------------

def gelu(input, approximate: str = "none"):
    """``F.gelu`` with ``approximate='none'`` (erf) or ``'tanh'``."""
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * input * (1.0 + (k * (input + 0.044715 * input * input * input)).tanh())
    if approximate != "none":
        raise ValueError(f"gelu(approximate={approximate!r}): expected 'none' or 'tanh'")
    return 0.5 * input * (1.0 + (input / math.sqrt(2.0)).erf())


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``F.softplus``: ``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    bx = input * beta
    safe = jt.minimum(bx, float(threshold))
    soft = (jt.maximum(safe, 0.0) + (-safe.abs()).exp().add(1.0).log()) / beta
    return jt.ternary(bx > threshold, input, soft)


def bilinear(input1, input2, weight, bias=None):
    """``F.bilinear``: ``y[..., o] = x1 W[o] x2 + b[o]`` (Jittor requires a bias)."""
    o, i, j = (int(s) for s in weight.shape)
    lead = [int(s) for s in input1.shape[:-1]]
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, j)
    t = jt.matmul(x1, weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + [o])


__all__ += ["gelu", "softplus", "bilinear"]


# --- padding and losses (torch's reductions and keyword arguments) -----------------------------

def pad(input, pad, mode: str = "constant", value: Optional[float] = None):
    """``F.pad``: any ``value`` for constant mode, and negative pads (cropping), which make
    Jittor's pad fail to compile."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: expected an even number of pads for at most {input.ndim} dims, got {pad}")
    # crop the negative sides first (pads run from the last dim backwards)
    index = [slice(None)] * input.ndim
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        index[d] = slice(-lo if lo < 0 else None, hi if hi < 0 else None)
    x = input[tuple(index)] if _b.any(p < 0 for p in pad) else input
    pos = [_b.max(p, 0) for p in pad]
    if not _b.any(pos):
        return x
    if mode != "constant":
        return jt.nn.pad(x, pos, mode=mode)
    y = jt.nn.pad(x, pos)
    if value:
        y = y + float(value) * (1.0 - jt.nn.pad(jt.ones_like(x), pos))
    return y


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"reduction={reduction!r}: expected 'mean', 'sum' or 'none'")


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.mse_loss`` with ``reduction``."""
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.l1_loss`` with ``reduction``."""
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
    """``F.smooth_l1_loss``: ``0.5 d^2 / beta`` below ``beta``, ``|d| - 0.5 beta`` above."""
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(jt.ternary(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    """``F.huber_loss``: ``0.5 d^2`` below ``delta``, ``delta (|d| - 0.5 delta)`` above."""
    d = (input - target).abs()
    return _reduce(jt.ternary(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.binary_cross_entropy``, logs clamped at -100 as torch does."""
    loss = -(target * jt.maximum(input.log(), -100.0) + (1 - target) * jt.maximum((1 - input).log(), -100.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    """``F.binary_cross_entropy_with_logits`` (stable), with ``weight`` and ``pos_weight``."""
    log_sig = logsigmoid(input)
    log_1m = logsigmoid(-input)
    pos = target * log_sig
    if pos_weight is not None:
        pos = pos * pos_weight
    loss = -(pos + (1 - target) * log_1m)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    """``F.nll_loss`` for (N, C) or (N, C, d1, ...) log-probabilities, with ``weight``,
    ``ignore_index`` and ``reduction`` (mean divides by the summed weights of kept targets)."""
    c = int(input.shape[1])
    logp = input if input.ndim == 2 else input.reshape(int(input.shape[0]), c, -1).transpose(1, 2).reshape(-1, c)
    t = target.reshape(-1)
    keep = (t != ignore_index)
    safe_t = jt.ternary(keep, t, jt.zeros_like(t))
    onehot = (jt.arange(c).reshape(1, c) == safe_t.reshape(-1, 1)).float32()
    w = onehot if weight is None else onehot * weight.reshape(1, c)
    w = w * keep.float32().reshape(-1, 1)
    picked = -(logp * w).sum(1)
    if reduction == "mean":
        return picked.sum() / w.sum()
    if reduction == "none":
        return picked.reshape(target.shape)
    return _reduce(picked, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    """``F.cross_entropy`` with class-index targets, ``weight``, ``ignore_index``,
    ``reduction`` and ``label_smoothing``; (N, C, d1, ...) inputs too."""
    logp = log_softmax(input, 1)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    c = int(input.shape[1])
    keep = (target != ignore_index).float32()
    w = 1.0 if weight is None else weight.reshape([1, c] + [1] * (input.ndim - 2))
    smooth = -(logp * w).sum(1) * keep
    if reduction == "mean":
        denom = keep.sum() if weight is None else nll_weight_sum(target, weight, ignore_index, c)
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + (label_smoothing / c) * smooth


def nll_weight_sum(target, weight, ignore_index, c):
    """Sum of ``weight[target]`` over kept targets (torch's mean denominator)."""
    t = target.reshape(-1)
    keep = (t != ignore_index)
    safe_t = jt.ternary(keep, t, jt.zeros_like(t))
    onehot = (jt.arange(c).reshape(1, c) == safe_t.reshape(-1, 1)).float32()
    return (onehot * weight.reshape(1, c) * keep.float32().reshape(-1, 1)).sum()


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
    """``F.kl_div`` (``input`` log-probabilities), with ``batchmean``."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / int(input.shape[0])
    return _reduce(loss, reduction)


__all__ += ["pad", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
            "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy", "kl_div"]


def inverse(input):
    """``torch.inverse``: the inverse of a square matrix (or a batch of them)."""
    return jt.linalg.inv(input)


__all__ += ["inverse"]


def _accept_tensor_sizes(method):
    """Wrap a ``Var`` shape method so one-element Vars work as sizes, as 0-d tensors do in
    torch (StyleGAN2's ``G = torch.min(torch.as_tensor(4), torch.as_tensor(N))`` then
    ``x.reshape(G, -1, ...)``); Jittor's binding accepts only Python ints there."""

    def as_size(s):
        return int(s.item()) if isinstance(s, jt.Var) else s

    def wrapped(self, *shape):
        if _b.any(isinstance(s, jt.Var) for s in shape):
            shape = tuple(as_size(s) for s in shape)
        elif len(shape) == 1 and isinstance(shape[0], (list, tuple)) and \
                _b.any(isinstance(s, jt.Var) for s in shape[0]):
            shape = (type(shape[0])(as_size(s) for s in shape[0]),)
        return method(self, *shape)

    wrapped.__name__ = method.__name__
    wrapped.__doc__ = method.__doc__
    wrapped.__wrapped__ = method
    return wrapped


for _name in ("reshape", "view", "repeat"):
    if not hasattr(getattr(jt.Var, _name), "__wrapped__"):
        setattr(jt.Var, _name, _accept_tensor_sizes(getattr(jt.Var, _name)))


def linalg_diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """``torch.linalg.diagonal``: :func:`diagonal` over the last two dims by default."""
    return diagonal(A, offset, dim1, dim2)


__all__ += ["linalg_diagonal"]


def permute(input, *dims):
    """``torch.permute``/``Tensor.permute``: dims as varargs or one sequence, negatives allowed
    (Jittor's raises for negative dims)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return input.permute([int(d) % input.ndim for d in dims])


def transpose(input, dim0: int, dim1: int):
    """``torch.transpose`` with negative dims."""
    return swapaxes(input, dim0, dim1)


__all__ += ["permute", "transpose"]


# --- more activations, 1-d layers via 2-d ones, shuffles, init helpers -------------------------

def selu(input, inplace: bool = False):
    """``F.selu``."""
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * jt.ternary(input > 0, input, alpha * expm1(jt.minimum(input, 0.0)))


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """``F.celu``: ``max(0, x) + min(0, alpha * expm1(x / alpha))``."""
    return jt.maximum(input, 0.0) + jt.minimum(alpha * expm1(input / alpha), 0.0)


def softsign(input):
    """``F.softsign``."""
    return input / (1.0 + input.abs())


def hardswish(input, inplace: bool = False):
    """``F.hardswish``: ``x * relu6(x + 3) / 6``."""
    return input * jt.minimum(jt.maximum(input + 3.0, 0.0), 6.0) / 6.0


def hardsigmoid(input, inplace: bool = False):
    """``F.hardsigmoid``: ``relu6(x + 3) / 6``."""
    return jt.minimum(jt.maximum(input + 3.0, 0.0), 6.0) / 6.0


def softshrink(input, lambd: float = 0.5):
    """``F.softshrink``."""
    return jt.ternary(input > lambd, input - lambd, jt.ternary(input < -lambd, input + lambd, jt.zeros_like(input)))


def hardshrink(input, lambd: float = 0.5):
    """``F.hardshrink``."""
    return jt.ternary(input.abs() > lambd, input, jt.zeros_like(input))


def tanhshrink(input):
    """``F.tanhshrink``: ``x - tanh(x)``."""
    return input - input.tanh()


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``F.threshold``: ``x`` where ``x > threshold``, else ``value``."""
    return jt.ternary(input > threshold, input, jt.full_like(input, value))


def prelu(input, weight):
    """``F.prelu``: one slope, or one per channel (dim 1)."""
    w = weight if weight.numel() == 1 else weight.reshape([1, -1] + [1] * (input.ndim - 2))
    return jt.ternary(input >= 0, input, w * input)


def glu(input, dim: int = -1):
    """``F.glu``: ``a * sigmoid(b)`` of the two halves along ``dim``."""
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def softmin(input, dim: int, dtype=None):
    """``F.softmin``: ``softmax(-x)``."""
    return softmax(-input, dim, dtype)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """``F.conv1d`` through Jittor's 2-d convolution."""
    one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    if isinstance(padding, str):
        raise NotImplementedError(f"conv1d(padding={padding!r}): pad explicitly")
    y = jt.nn.conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, one(stride)), (0, one(padding)),
                     (1, one(dilation)), groups)
    return y.squeeze(2)


def pixel_shuffle(input, upscale_factor: int):
    """``F.pixel_shuffle``: (N, C r^2, H, W) -> (N, C, H r, W r)."""
    n, c, h, w = (int(s) for s in input.shape)
    r = int(upscale_factor)
    y = input.reshape(n, c // (r * r), r, r, h, w).permute(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor: int):
    """``F.pixel_unshuffle``: (N, C, H r, W r) -> (N, C r^2, H, W)."""
    n, c, h, w = (int(s) for s in input.shape)
    r = int(downscale_factor)
    y = input.reshape(n, c, h // r, r, w // r, r).permute(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * r * r, h // r, w // r)


def reshape_as(input, other):
    """``Tensor.reshape_as``."""
    return input.reshape(tuple(other.shape))


def logdet(input):
    """``torch.logdet``: ``log(det)`` (NaN for a negative determinant, as torch)."""
    return jt.linalg.det(input).log()


def zeros_(tensor):
    """``nn.init.zeros_``."""
    return tensor.assign(jt.zeros_like(tensor))


def ones_(tensor):
    """``nn.init.ones_``."""
    return tensor.assign(jt.ones_like(tensor))


def _fans(tensor):
    shape = [int(s) for s in tensor.shape]
    if len(shape) < 2:
        raise ValueError("fan in/out need a tensor with at least 2 dims")
    rf = 1
    for s in shape[2:]:
        rf *= s
    return shape[1] * rf, shape[0] * rf


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """``nn.init.xavier_normal_``: N(0, gain^2 * 2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return tensor.assign(jt.randn(tuple(tensor.shape), dtype=tensor.dtype) * std)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """``nn.init.orthogonal_``: torch's recipe, a QR of a normal (rows, numel/rows) matrix (the
    transpose when wider than tall) with the signs of R's diagonal, times ``gain``."""
    import numpy as np
    if tensor.ndim < 2:
        raise ValueError("orthogonal_: only tensors with 2 or more dimensions are supported")
    rows = int(tensor.shape[0])
    cols = int(np.prod([int(s) for s in tensor.shape])) // rows
    flat = jt.randn(rows, cols).numpy().astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return tensor.assign(jt.array((gain * q).reshape(tuple(tensor.shape)).astype(str(tensor.dtype))))


__all__ += ["selu", "celu", "softsign", "hardswish", "hardsigmoid", "softshrink", "hardshrink", "tanhshrink",
            "threshold", "prelu", "glu", "softmin", "conv1d", "pixel_shuffle", "pixel_unshuffle", "reshape_as",
            "logdet", "zeros_", "ones_", "xavier_normal_", "orthogonal_"]


def scatter(input, dim: int, index, src=None, value=None, *, reduce=None):
    """``torch.scatter``/``Tensor.scatter`` with a tensor ``src`` or a number (``value`` or a
    number in ``src``'s place; Jittor's needs a Var)."""
    if src is None:
        src = value
    if not isinstance(src, jt.Var):
        src = jt.full(tuple(index.shape), src, input.dtype)
    if reduce is None:
        return jt.scatter(input, dim, index, src)
    return jt.scatter(input, dim, index, src, reduce={"add": "add", "multiply": "multiply"}[reduce])


def scatter_add(input, dim: int, index, src):
    """``torch.scatter_add``."""
    return jt.scatter(input, dim, index, src, reduce="add")


def scatter_(input, dim: int, index, src=None, value=None, *, reduce=None):
    """``Tensor.scatter_``."""
    return input.assign(scatter(input, dim, index, src, value, reduce=reduce))


def scatter_add_(input, dim: int, index, src):
    """``Tensor.scatter_add_``."""
    return input.assign(scatter_add(input, dim, index, src))


__all__ += ["scatter", "scatter_add", "scatter_", "scatter_add_"]


#: torch's memory formats.  Jittor has one layout and the converter drops ``memory_format=``
#: arguments; these names keep code that stores a format in a variable (StyleGAN2's
#: ``memory_format = torch.channels_last if ... else torch.contiguous_format``) working.
channels_last = "channels_last"
contiguous_format = "contiguous_format"
preserve_format = "preserve_format"


def equal(input, other) -> bool:
    """``torch.equal``: True when both have the same shape and the same values (a Python bool)."""
    a = input if isinstance(input, jt.Var) else jt.array(np.asarray(input))
    b = other if isinstance(other, jt.Var) else jt.array(np.asarray(other))
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool(np.array_equal(a.numpy(), b.numpy()))


__all__ += ["channels_last", "contiguous_format", "preserve_format", "equal"]


def meshgrid(*tensors, indexing: str = "ij"):
    """``torch.meshgrid`` with ``indexing='ij'`` (torch's default) or ``'xy'``; tensors as
    varargs or one list."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid(indexing={indexing!r}): expected 'ij' or 'xy'")
    ts = list(tensors)
    if indexing == "xy" and len(ts) >= 2:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [int(t.shape[0]) for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        out.append(t.reshape(view).broadcast(shape))
    if indexing == "xy" and len(out) >= 2:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


__all__ += ["meshgrid"]


def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """``torch.unique`` (sorted values; Jittor ignores ``return_counts`` unless
    ``return_inverse`` is also asked for)."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) has no Jittor equivalent")
    if not (return_inverse or return_counts):
        return jt.unique(input)
    values, inverse, counts = jt.unique(input, return_inverse=True, return_counts=True)
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out


__all__ += ["unique"]


def mish(input, inplace: bool = False):
    """``F.mish``: ``x * tanh(softplus(x))`` (Jittor's Mish calls a missing ``jt.softplus``)."""
    return input * softplus(input).tanh()


__all__ += ["mish"]


# --- 1-d pooling through the 2-d shims (a (N, C, L) input is (N, C, 1, L)) ----------------------

def _first(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool1d`` via ``shims.nn.max_pool2d`` on a height-1 map."""
    from .nn import max_pool2d

    s = None if stride is None else (1, _first(stride))
    y = max_pool2d(input.unsqueeze(-2), (1, _first(kernel_size)), s, (0, _first(padding)),
                   (1, _first(dilation)), ceil_mode, return_indices)
    return y.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """``F.avg_pool1d`` via ``shims.nn.avg_pool2d`` on a height-1 map."""
    from .nn import avg_pool2d

    s = None if stride is None else (1, _first(stride))
    y = avg_pool2d(input.unsqueeze(-2), (1, _first(kernel_size)), s, (0, _first(padding)), ceil_mode,
                   count_include_pad)
    return y.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """``F.adaptive_avg_pool1d`` via ``shims.nn.adaptive_avg_pool2d``."""
    from .nn import adaptive_avg_pool2d

    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _first(output_size))).squeeze(-2)


__all__ += ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d"]
