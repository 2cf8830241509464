"""Average pooling with torch's exact output sizes and divisors, for any input and output size
(the max pools, which also need torch's gradient routing, are in :mod:`.max_pool`).

Jittor 1.3.11's pools reject list kernels and inputs as small as the kernel, add an extra
output row with ``ceil_mode`` (torch drops windows that start in the right padding), ignore
``count_include_pad=False`` unless ``ceil_mode``, and its adaptive pools assume divisible
sizes.  These are written with ``reindex`` (one fused gather) and small matmuls instead.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

import jittor as jt

from .module import Module
from .pool_geometry import adaptive_bins, pool_out_size

__all__ = ["avg_pool2d", "adaptive_avg_pool2d", "AvgPool2d", "AdaptiveAvgPool2d"]

IntPair = Union[int, Sequence[int]]


def _pair(v, what: str) -> Tuple[int, int]:
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(i, (int, np.integer)) for i in v):
        return int(v[0]), int(v[1])
    if isinstance(v, (tuple, list)) and len(v) == 1:
        return _pair(v[0], what)
    raise TypeError(f"{what} must be an int or a pair of ints, got {v!r}")


def _as_4d(x: jt.Var, fn: str):
    if x.ndim == 3:
        return x.unsqueeze(0), True
    if x.ndim != 4:
        raise ValueError(f"{fn}: expected a 3-D (C,H,W) or 4-D (N,C,H,W) input, got shape {tuple(x.shape)}")
    return x, False


def _geometry(x, kernel_size, stride, padding, dilation, ceil_mode, fn):
    kh, kw = _pair(kernel_size, f"{fn}: kernel_size")
    sh, sw = _pair(stride if stride not in (None, [], ()) else (kh, kw), f"{fn}: stride")
    ph, pw = _pair(padding, f"{fn}: padding")
    dh, dw = _pair(dilation, f"{fn}: dilation")
    if min(kh, kw, sh, sw, dh, dw) <= 0:
        raise ValueError(f"{fn}: kernel_size, stride and dilation must be positive")
    if ph > kh // 2 or pw > kw // 2 or ph < 0 or pw < 0:
        raise ValueError(f"{fn}: pad should be at most half of effective kernel size, "
                         f"but got pad={(ph, pw)} and kernel_size={(kh, kw)}")
    H, W = x.shape[2], x.shape[3]
    oh = pool_out_size(H, kh, sh, ph, dh, ceil_mode)
    ow = pool_out_size(W, kw, sw, pw, dw, ceil_mode)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{fn}: output size is too small for input {(H, W)} and kernel {(kh, kw)}")
    return (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow)


def _windows(x: jt.Var, k, s, p, d, o, fill: float) -> jt.Var:
    """(N, C, oh, ow, kh, kw) view of every pooling window; out-of-range reads give ``fill``."""
    N, C = x.shape[0], x.shape[1]
    return x.reindex([N, C, o[0], o[1], k[0], k[1]],
                     ["i0", "i1", f"i2*{s[0]}+i4*{d[0]}-{p[0]}", f"i3*{s[1]}+i5*{d[1]}-{p[1]}"],
                     overflow_value=fill)


def _avg_divisor(H, W, k, s, p, o, count_include_pad, divisor_override) -> np.ndarray:
    if divisor_override:
        return np.full(o, float(divisor_override), np.float32)
    div = np.empty(o, np.float32)
    for i in range(o[0]):
        h0 = i * s[0] - p[0]
        h1 = min(h0 + k[0], H + p[0])
        for j in range(o[1]):
            w0 = j * s[1] - p[1]
            w1 = min(w0 + k[1], W + p[1])
            if count_include_pad:
                div[i, j] = (h1 - h0) * (w1 - w0)
            else:
                div[i, j] = (min(h1, H) - max(h0, 0)) * (min(w1, W) - max(w0, 0))
    return div


def avg_pool2d(input: jt.Var, kernel_size: IntPair, stride: Optional[IntPair] = None,
               padding: IntPair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> jt.Var:
    """``torch.nn.functional.avg_pool2d``: torch's output size and per-window divisor
    (``count_include_pad``, windows clipped by ``ceil_mode``, ``divisor_override``)."""
    x, squeeze = _as_4d(input, "avg_pool2d")
    k, s, p, d, o = _geometry(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    div = _avg_divisor(x.shape[2], x.shape[3], k, s, p, o, count_include_pad, divisor_override)
    out = _windows(x, k, s, p, d, o, 0.0).sum(dims=[4, 5]) / jt.array(div).cast(x.dtype)
    return out.squeeze(0) if squeeze else out


def _out_pair(output_size, H, W):
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size, output_size)
    oh, ow = output_size
    return (H if oh is None else int(oh)), (W if ow is None else int(ow))


def adaptive_avg_pool2d(input: jt.Var, output_size) -> jt.Var:
    """``torch.nn.functional.adaptive_avg_pool2d`` for any input/output sizes (torch's bins,
    ``None`` keeps a dimension); computed as ``A_h @ x @ A_w^T`` with averaging matrices."""
    x, squeeze = _as_4d(input, "adaptive_avg_pool2d")
    H, W = x.shape[2], x.shape[3]
    oh, ow = _out_pair(output_size, H, W)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be positive, got {output_size}")

    def matrix(size, out):
        m = np.zeros((out, size), np.float32)
        for i, (a, b) in enumerate(adaptive_bins(size, out)):
            m[i, a:b] = 1.0 / (b - a)
        return jt.array(m).cast(x.dtype)

    out = jt.matmul(jt.matmul(matrix(H, oh), x), matrix(W, ow).transpose(1, 0))
    return out.squeeze(0) if squeeze else out


class AvgPool2d(Module):
    """``torch.nn.AvgPool2d`` (``count_include_pad``, ``ceil_mode``, ``divisor_override``)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def execute(self, x):
        return avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool2d(Module):
    """``torch.nn.AdaptiveAvgPool2d`` for any input and output size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def execute(self, x):
        return adaptive_avg_pool2d(x, self.output_size)
