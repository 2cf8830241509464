"""Reductions and scans with torch's semantics (dims, keepdim, unbiased var/std, int64 accumulation)."""
from __future__ import annotations

import builtins as _b
from typing import Optional

import jittor as jt
import numpy as np

from ._common import Dim, _ValuesIndices, _cast, _count, _dims, _is_int, float_mean, float_sum
from .shape import movedim
from .tie_grads import maximum, minimum, split_among_ties, take_along

__all__ = ['sum', 'mean', 'prod', 'var', 'std', 'var_mean', 'std_mean', 'logsumexp', 'amax', 'amin', 'max', 'min',
           'argmax', 'argmin', 'cumprod', 'all', 'any', 'count_nonzero', 'argsort', 'median', 'sum_to_size', 'equal',
           'unique', 'logcumsumexp', 'cummax', 'cummin', 'kthvalue', 'msort', 'nansum', 'nanmean', 'aminmax',
           'nanmedian']


def sum(input, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.sum``: dim as int or tuple (keyword too), ``keepdim``, ``dtype``; integer and
    bool inputs sum in int64; a full reduction has shape (1,)."""
    x = _cast(input, dtype)
    if dtype is None and _is_int(x):
        x = x.int64()
    dims = _dims(x, dim)
    return float_sum(x, dims, keepdim) if dims else x.clone()


def mean(input, dim: Dim = None, keepdim: bool = False, *, dtype=None):
    """``torch.mean`` with dim as int or tuple, ``keepdim`` and ``dtype``."""
    x = _cast(input, dtype)
    if _is_int(x):
        raise TypeError("mean(): torch cannot average an integer tensor; pass dtype= or call .float()")
    dims = _dims(x, dim)
    return float_mean(x, dims, keepdim) if dims else x.clone()


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
    m = float_mean(x, dims, True)
    d = x - m
    # Two-pass variance, no clamp (Jittor's std clamps the variance at 1e-6).
    ss = float_sum(d * d, dims, keepdim)
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
    """``torch.amax``: maximum over ``dim`` (all dims when empty); the gradient is split evenly
    among tied maxima, as torch's."""
    dims = _dims(input, dim)
    return split_among_ties(input, input.max(dims, keepdims=keepdim), dims, keepdim)


def amin(input, dim: Dim = (), keepdim: bool = False):
    """``torch.amin``: minimum over ``dim`` (all dims when empty); the gradient is split evenly
    among tied minima, as torch's."""
    dims = _dims(input, dim)
    return split_among_ties(input, input.min(dims, keepdims=keepdim), dims, keepdim)


def logsumexp(input, dim: Dim, keepdim: bool = False):
    """``torch.logsumexp``, shifted by the max so that ±1000 stays finite."""
    dims = _dims(input, dim)
    m = input.max(dims, keepdims=True).stop_grad()
    m = jt.ternary(m.isinf(), jt.zeros_like(m), m)
    y = (input - m).exp().sum(dims, keepdims=True).log() + m
    return y if keepdim else y.reshape([int(s) for i, s in enumerate(input.shape) if i not in dims] or [1])


def _max_min(input, dim, keepdim, other, op):
    if other is not None and not isinstance(other, (int, bool)):
        return maximum(input, other) if op == "max" else minimum(input, other)
    if other is not None:  # torch.max(x, 1): the second positional is dim
        dim = other
    if dim is None:  # torch splits the gradient evenly among tied extremes
        return split_among_ties(input, input.max() if op == "max" else input.min(), range(input.ndim), False)
    d = dim % input.ndim
    idx, _ = input.argmax(d, keepdims=True) if op == "max" else input.argmin(d, keepdims=True)
    # torch returns the first NaN (Jittor's argmax skips NaNs); the value's gradient goes to
    # the returned index only, not to every tied extreme.
    nan = input.isnan()
    first_nan, any_nan = nan.int32().argmax(d, keepdims=True)
    idx = jt.ternary(any_nan > 0, first_nan, idx).int64()
    val = take_along(input, idx, d, True)
    if not keepdim:
        idx, val = idx.squeeze(d), val.squeeze(d)
    return _ValuesIndices((val, idx))


def max(input, dim=None, keepdim: bool = False, *, other=None):
    """``torch.max``: full max; ``max(x, dim)`` -> ``(values, indices)``; ``max(x, y)`` -> maximum."""
    if dim is not None:
        return _max_min(input, None, keepdim, dim, "max")
    return _max_min(input, None, keepdim, other, "max")


def min(input, dim=None, keepdim: bool = False, *, other=None):
    """``torch.min``: full min; ``min(x, dim)`` -> ``(values, indices)``; ``min(x, y)`` -> minimum."""
    if dim is not None:
        return _max_min(input, None, keepdim, dim, "min")
    return _max_min(input, None, keepdim, other, "min")


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


def median(input, dim: Optional[int] = None, keepdim: bool = False):
    """``torch.median``: the lower median; with ``dim``, ``(values, indices)`` (Jittor's is
    wrong for dim != 0 and returns values only)."""
    if dim is None:
        flat = input.reshape(-1)
        idx, val = flat.argsort(0)
        v = val[(int(flat.shape[0]) - 1) // 2:(int(flat.shape[0]) - 1) // 2 + 1]
        return split_among_ties(input, v, range(input.ndim), False)  # torch splits among ties
    d = _dims(input, dim)[0]
    idx, val = input.argsort(d)
    k = (int(input.shape[d]) - 1) // 2
    sl = (slice(None),) * d + (slice(k, k + 1),)
    v, i = val[sl], idx[sl]
    if not keepdim and v.ndim > 1:
        v, i = v.squeeze(d), i.squeeze(d)
    return _ValuesIndices((v, i))


def sum_to_size(input, *size):
    """``Tensor.sum_to_size``: sum the broadcast dims back to ``size``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    lead = input.ndim - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and int(input.shape[lead + i]) != 1)
    y = input.sum(dims, keepdims=True) if dims else input
    return y.reshape(tuple(size))


def equal(input, other) -> bool:
    """``torch.equal``: True when both have the same shape and the same values (a Python bool)."""
    a = input if isinstance(input, jt.Var) else jt.array(np.asarray(input))
    b = other if isinstance(other, jt.Var) else jt.array(np.asarray(other))
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool(np.array_equal(a.numpy(), b.numpy()))


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


def logcumsumexp(input, dim: int):
    """``torch.logcumsumexp``: ``log(cumsum(exp(x)))``, shifted by the max along ``dim``."""
    m = input.max(dim, keepdims=True).stop_grad()
    return (input - m).exp().cumsum(dim).log() + m


def _cum_extreme(input, dim: int, take_max: bool):
    d = dim % input.ndim
    x = movedim(input, d, 0)
    vals, idxs = [x[0]], [jt.zeros(tuple(x.shape[1:]), dtype="int64")]
    for i in range(1, int(x.shape[0])):
        better = x[i] >= vals[-1] if take_max else x[i] <= vals[-1]
        vals.append(jt.ternary(better, x[i], vals[-1]))
        idxs.append(jt.ternary(better, jt.full(tuple(x.shape[1:]), i, dtype="int64"), idxs[-1]))
    return _ValuesIndices((movedim(jt.stack(vals, 0), 0, d), movedim(jt.stack(idxs, 0), 0, d)))


def cummax(input, dim: int):
    """``torch.cummax``: ``(values, indices)``; a tie takes the later index, as torch."""
    return _cum_extreme(input, dim, True)


def cummin(input, dim: int):
    """``torch.cummin``: ``(values, indices)``; a tie takes the later index, as torch."""
    return _cum_extreme(input, dim, False)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """``torch.kthvalue``: the ``k``-th smallest along ``dim`` and its index."""
    d = dim % input.ndim
    idx, val = input.argsort(d)
    sl = (slice(None),) * d + (slice(k - 1, k),)
    v, i = val[sl], idx[sl]
    if not keepdim and v.ndim > 1:
        v, i = v.squeeze(d), i.squeeze(d)
    return _ValuesIndices((v, i))


def msort(input):
    """``torch.msort``: sorted along dim 0."""
    return input.argsort(0)[1]


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """``torch.nansum``: NaNs count as zero."""
    return sum(jt.ternary(input.isnan(), jt.zeros_like(input), input), dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """``torch.nanmean``: the mean of the non-NaN elements."""
    keep = input.isnan().logical_not().cast(input.dtype)
    return nansum(input, dim, keepdim, dtype=dtype) / sum(keep, dim, keepdim)


def aminmax(input, *, dim=None, keepdim: bool = False):
    """``torch.aminmax``: ``(min, max)``."""
    d = () if dim is None else dim
    return _ValuesIndices((amin(input, d, keepdim), amax(input, d, keepdim)))


def nanmedian(input, dim=None, keepdim: bool = False):
    """``torch.nanmedian``: the lower median of the non-NaN values (NaN only if all are NaN);
    with ``dim``, ``(values, indices)``."""
    nanmask = input.isnan()
    big = jt.ternary(nanmask, jt.full_like(input, float("inf")), input)
    if dim is None:
        flat = big.reshape(-1)
        valid = int(nanmask.logical_not().sum().item())
        if valid == 0:
            return jt.array([float("nan")]).cast(input.dtype)
        _, val = flat.argsort(0)
        k = (valid - 1) // 2
        return split_among_ties(input, val[k:k + 1], range(input.ndim), False)  # torch splits among ties
    d = dim % input.ndim
    idx, val = big.argsort(d)
    valid = nanmask.logical_not().cast("int32").sum(d, keepdims=True)
    k = jt.maximum((valid - 1) // 2, 0)
    v = val.gather(d, k)
    i = idx.gather(d, k)
    allnan = valid == 0
    v = jt.ternary(allnan, jt.full_like(v, float("nan")), v)
    if not keepdim and v.ndim > 1:
        v, i = v.squeeze(d), i.squeeze(d)
    return _ValuesIndices((v, i))
