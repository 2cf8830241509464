"""Statistics over tensors with torch's conventions: ``quantile``/``nanquantile`` (every
interpolation), ``bincount``, ``histc``, ``diff``, ``cov``/``corrcoef``, the trapezoidal rules and
``unique_consecutive`` (computed on the host, as noted).
"""
from __future__ import annotations

import builtins as _b

import jittor as jt
import numpy as np

from .pointwise import clamp
from .shape import movedim

__all__ = [
    "quantile", "nanquantile", "bincount", "histc", "diff", "cov", "corrcoef", "trapezoid", "cumulative_trapezoid",
    "unique_consecutive",
]


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan):
    qs = q if isinstance(q, (list, tuple)) else (q.numpy().tolist() if isinstance(q, jt.Var) else q)
    scalar_q = not isinstance(qs, (list, tuple)) and not (isinstance(q, jt.Var) and q.ndim > 0 and int(q.numel()) > 1)
    qs = [float(v) for v in (qs if isinstance(qs, (list, tuple)) else [qs])]
    if dim is None:
        x = x.reshape(-1)
        d = 0
    else:
        d = dim % x.ndim
    xs = movedim(x, d, -1)
    n = int(xs.shape[-1])
    if ignore_nan:
        valid = xs.isnan().logical_not().cast("float32").sum(-1, keepdims=True)
        big = jt.ternary(xs.isnan(), jt.full_like(xs, float("inf")), xs)
        _, sv = big.argsort(-1)
    else:
        _, sv = xs.argsort(-1)
        valid = jt.full(tuple(xs.shape[:-1]) + (1,), float(n))
    outs = []
    for qv in qs:
        pos = (valid - 1) * qv  # (..., 1)
        lo = pos.floor().stop_grad()
        hi = pos.ceil().stop_grad()
        lo_i = jt.maximum(lo, 0).int32()
        hi_i = jt.maximum(hi, 0).int32()
        vlo = sv.gather(-1, lo_i)
        vhi = sv.gather(-1, hi_i)
        frac = (pos - lo).cast(x.dtype)
        if interpolation == "linear":
            v = vlo + (vhi - vlo) * frac
        elif interpolation == "lower":
            v = vlo
        elif interpolation == "higher":
            v = vhi
        elif interpolation == "midpoint":
            v = (vlo + vhi) * 0.5
        elif interpolation == "nearest":
            near = (pos - lo) > 0.5
            tie = (pos - lo) == 0.5
            even_lo = (lo % 2) == 0
            v = jt.ternary(near | (tie & even_lo.logical_not()), vhi, vlo)
        else:
            raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                             f"Got {interpolation}")
        v = v.squeeze(-1) if v.ndim > 1 else v  # Jittor has no 0-d Vars: a scalar stays (1,)
        if dim is not None and keepdim:
            v = v.unsqueeze(d)
        elif dim is None and keepdim:
            v = v.reshape((1,) * x.ndim)
        outs.append(v)
    return outs[0] if scalar_q else jt.stack(outs, 0)


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):
    """``torch.quantile`` (``interpolation`` linear, lower, higher, midpoint, nearest)."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):
    """``torch.nanquantile``: NaNs ignored."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


def bincount(input, weights=None, minlength: int = 0):
    """``torch.bincount`` of non-negative ints (the length is read on the host)."""
    n = _b.max(int(input.max().item()) + 1 if int(input.numel()) else 0, minlength)
    oh = (input.reshape(-1, 1) == jt.arange(n).reshape(1, n))
    if weights is None:
        return oh.int64().sum(0)
    return (oh.cast(weights.dtype) * weights.reshape(-1, 1)).sum(0)


def histc(input, bins: int = 100, min: float = 0, max: float = 0):
    """``torch.histc``: ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0);
    elements outside are ignored, the top edge falls in the last bin."""
    lo, hi = float(min), float(max)
    if lo == hi:
        lo, hi = float(input.min().item()), float(input.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    x = input.reshape(-1)
    inside = (x >= lo) & (x <= hi)
    b = ((x - lo) * (bins / (hi - lo))).floor().int32()
    b = jt.minimum(b, bins - 1)
    oh = (b.reshape(-1, 1) == jt.arange(bins).reshape(1, bins)) & inside.reshape(-1, 1)
    return oh.cast(input.dtype).sum(0)


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None):
    """``torch.diff``: the ``n``-th forward difference along ``dim``."""
    d = dim % input.ndim
    parts = [p for p in (prepend, input, append) if p is not None]
    x = jt.concat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = int(x.shape[d])
        hi = x[(slice(None),) * d + (slice(1, length),)]
        lo = x[(slice(None),) * d + (slice(0, length - 1),)]
        x = (hi != lo) if str(x.dtype) == "bool" else hi - lo
    return x


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """``torch.cov``: rows are variables, columns observations (weights supported)."""
    x = input.reshape(1, -1) if input.ndim == 1 else input
    n = int(x.shape[1])
    w = None
    if fweights is not None:
        w = fweights.cast(x.dtype)
    if aweights is not None:
        w = aweights.cast(x.dtype) if w is None else w * aweights.cast(x.dtype)
    if w is None:
        mean = x.mean(1, keepdims=True)
        xc = x - mean
        c = jt.matmul(xc, xc.transpose(1, 0)) / (n - correction)
    else:
        wsum = w.sum()
        mean = (x * w).sum(1, keepdims=True) / wsum
        xc = x - mean
        if correction == 0:
            norm = wsum
        elif aweights is None:
            norm = wsum - correction
        else:
            norm = wsum - correction * (w * aweights.cast(x.dtype)).sum() / wsum
        c = jt.matmul(xc * w, xc.transpose(1, 0)) / norm
    return c.reshape(1) if input.ndim == 1 else c


def corrcoef(input):
    """``torch.corrcoef``: Pearson correlation of the rows (clipped to [-1, 1])."""
    c = cov(input)
    if input.ndim == 1:
        return c / c
    d = jt.diag(c).sqrt()
    r = c / d.reshape(-1, 1) / d.reshape(1, -1)
    return clamp(r, -1, 1)


def _trapezoids(y, x, dx, dim: int):
    """The areas of the trapezoids along ``dim`` (spacing ``dx`` or sample points ``x``), and
    ``dim`` made non-negative: summed by :func:`trapezoid`, accumulated by
    :func:`cumulative_trapezoid`."""
    d = dim % y.ndim
    n = int(y.shape[d])
    a = y[(slice(None),) * d + (slice(1, n),)]
    b = y[(slice(None),) * d + (slice(0, n - 1),)]
    if x is None:
        return (a + b) * ((1.0 if dx is None else dx) / 2.0), d
    dxs = diff(x, dim=dim if x.ndim == y.ndim else -1)
    if x.ndim != y.ndim:
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return (a + b) * dxs / 2.0, d


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """``torch.trapezoid``/``trapz``: the trapezoidal rule along ``dim`` (spacing ``dx`` or sample
    points ``x``)."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.sum(d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """``torch.cumulative_trapezoid``."""
    areas, d = _trapezoids(y, x, dx, dim)
    return areas.cumsum(d)


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """``torch.unique_consecutive`` (computed on the host; flattened input, as torch without ``dim``)."""
    if dim is not None:
        raise NotImplementedError("unique_consecutive(dim=...) is not supported")
    a = input.numpy().reshape(-1)
    starts = np.zeros(0, np.int64) if a.size == 0 else np.concatenate([[0], np.nonzero(a[1:] != a[:-1])[0] + 1])
    values = jt.array(a[starts]) if a.size else jt.array(a)
    out = [values]
    if return_inverse:
        inv = np.cumsum(np.concatenate([[0], (a[1:] != a[:-1]).astype(np.int64)])) if a.size else a.astype(np.int64)
        out.append(jt.array(inv.reshape(tuple(input.shape)).astype(np.int64)))
    if return_counts:
        counts = np.diff(np.concatenate([starts, [a.size]])) if a.size else np.zeros(0, np.int64)
        out.append(jt.array(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
