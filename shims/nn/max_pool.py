"""Max pooling of any rank whose gradient goes where torch's goes: to ONE element per window.

torch's pools (CPU and CUDA) scan a window in row-major order from ``maxval = -inf`` with
``maxindex`` at the window's first in-bounds element, and take an element when
``val > maxval || isnan(val)``: the first maximum wins a tie, the last NaN wins over numbers, an
all ``-inf`` window keeps its first in-bounds element.  The backward adds each window's gradient
to that one index.  Jittor's ``max`` reduction instead sends the full gradient to every tied
maximum, which multiplies the gradient mass on flat regions (nearest-upsampled maps, ReLU zeros,
float32 rounding).

Here the forward finds that index with torch's rule (``_argmax_windows``) and reads the output
through it with ``reindex``, whose backward is a scatter-add to the index: torch's gradient, and
``return_indices`` for free (torch's flat index over the spatial dims).  The window table (input
offset of every (output position, kernel offset), -1 outside the input) is static numpy, so
padding, dilation, ``ceil_mode`` and adaptive bins are one code path for 1-, 2- and 3-D.
"""
from __future__ import annotations

import functools
import math
from typing import Optional, Sequence, Tuple

import numpy as np

import jittor as jt

from .module import Module
from .pool_geometry import adaptive_bins, pool_out_size

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "MaxPool2d",
           "MaxPool3d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d"]


def _ntuple(v, n: int, what: str) -> Tuple[int, ...]:
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    if isinstance(v, (tuple, list)) and all(isinstance(i, (int, np.integer)) for i in v):
        if len(v) == n:
            return tuple(int(i) for i in v)
        if len(v) == 1:
            return (int(v[0]),) * n
    raise TypeError(f"{what} must be an int or a sequence of {n} ints, got {v!r}")


def _split_batch(x: jt.Var, nsp: int, fn: str):
    """``(lead shape, spatial shape)``: torch takes ``(C, *S)`` or ``(N, C, *S)``."""
    if x.ndim not in (nsp + 1, nsp + 2):
        raise ValueError(f"{fn}: expected a {nsp + 1}-D or {nsp + 2}-D input, got shape {tuple(x.shape)}")
    return tuple(int(s) for s in x.shape[:-nsp]), tuple(int(s) for s in x.shape[-nsp:])


def _combine(per_dim, sizes):
    """Flat (O, K) table from per-dim ``(positions (o_d, k_d), valid (o_d, k_d))``; -1 where any
    dim is out of range.  Output positions and kernel offsets are both row-major (torch's scan)."""
    n = len(per_dim)
    flat = np.zeros([1] * (2 * n), np.int64)
    valid = np.ones([1] * (2 * n), bool)
    step = int(np.prod(sizes))
    for d, (pos, ok) in enumerate(per_dim):
        step //= sizes[d]
        shape = [1] * (2 * n)
        shape[d], shape[n + d] = pos.shape
        flat = flat + pos.reshape(shape) * step
        valid = valid & ok.reshape(shape)
    o = int(np.prod(flat.shape[:n]))
    table = np.where(valid, flat, -1).reshape(o, -1)
    return table.astype(np.int32)


@functools.lru_cache(maxsize=256)
def _window_table(sizes, kernel, stride, padding, dilation, out):
    per_dim = []
    for size, k, s, p, d, o in zip(sizes, kernel, stride, padding, dilation, out):
        pos = np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d
        per_dim.append((pos, (pos >= 0) & (pos < size)))
    return _combine(per_dim, sizes)


@functools.lru_cache(maxsize=256)
def _adaptive_table(sizes, out):
    per_dim = []
    for size, o in zip(sizes, out):
        bins = adaptive_bins(size, o)
        k = max(b - a for a, b in bins)
        start = np.array([a for a, _ in bins])[:, None]
        length = np.array([b - a for a, b in bins])[:, None]
        offs = np.arange(k)[None, :]
        per_dim.append((start + offs, offs < length))
    return _combine(per_dim, sizes)


def _argmax_windows(flat: jt.Var, table: np.ndarray) -> jt.Var:
    """(B, O) flat input index of each window's maximum by torch's rule (see the module doc)."""
    B = int(flat.shape[0])
    n_out, K = table.shape
    t = jt.array(table)
    with jt.no_grad():
        win = flat.reindex([B, n_out, K], ["i0", "@e0(i1,i2)"], overflow_value=-math.inf, extras=[t])
        m = win.max(2, keepdims=True)
        k = jt.index((B, n_out, K), 2)
        valid = (t >= 0).broadcast([B, n_out, K], [0])
        # One min decides: a NaN at k scores -1-k (the last NaN is the smallest), an in-bounds
        # element equal to the max scores k (the first wins), any other in-bounds one K+k (an
        # all -inf window, whose Jittor max is the lowest finite float, keeps its first), padding 3K.
        score = jt.ternary(win.isnan(), -1 - k,
                           jt.ternary(valid, jt.ternary(win == m, k, K + k), 3 * K))
        best = score.min(2)
        best = jt.ternary(best < 0, -1 - best, jt.ternary(best >= K, best - K, best))
        return t.reindex([B, n_out], ["i1", "@e0(i0,i1)"], extras=[best])


def _pool(x: jt.Var, nsp: int, table: np.ndarray, out, return_indices: bool, fn: str):
    lead, sizes = _split_batch(x, nsp, fn)
    B = int(np.prod(lead))
    flat = x.reshape(B, int(np.prod(sizes)))
    idx = _argmax_windows(flat, table)
    # reindex's backward adds each window's gradient to its one index: torch's rule.
    y = flat.reindex([B, table.shape[0]], ["i0", "@e0(i0,i1)"], extras=[idx])
    y = y.reshape(lead + tuple(out))
    if return_indices:
        return y, idx.int64().reshape(lead + tuple(out))
    return y


def _max_pool(x, nsp, kernel_size, stride, padding, dilation, ceil_mode, return_indices, fn):
    lead, sizes = _split_batch(x, nsp, fn)
    k = _ntuple(kernel_size, nsp, f"{fn}: kernel_size")
    s = _ntuple(stride if stride not in (None, [], ()) else k, nsp, f"{fn}: stride")
    p = _ntuple(padding, nsp, f"{fn}: padding")
    d = _ntuple(dilation, nsp, f"{fn}: dilation")
    if min(k + s + d) <= 0:
        raise ValueError(f"{fn}: kernel_size, stride and dilation must be positive")
    if any(pi < 0 or pi > ki // 2 for pi, ki in zip(p, k)):
        raise ValueError(f"{fn}: pad should be at most half of effective kernel size, "
                         f"but got pad={p} and kernel_size={k}")
    out = tuple(pool_out_size(n, ki, si, pi, di, ceil_mode) for n, ki, si, pi, di in zip(sizes, k, s, p, d))
    if min(out) <= 0:
        raise ValueError(f"{fn}: output size is too small for input {sizes} and kernel {k}")
    return _pool(x, nsp, _window_table(sizes, k, s, p, d, out), out, return_indices, fn)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool1d``: torch's sizes, padding, dilation, ``ceil_mode``, indices and tie rule."""
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool2d``: torch's sizes, padding, dilation, ``ceil_mode``, indices and tie rule."""
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """``F.max_pool3d``: torch's sizes, padding, dilation, ``ceil_mode``, indices and tie rule."""
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool3d")


def _adaptive(x, nsp, output_size, return_indices, fn):
    _, sizes = _split_batch(x, nsp, fn)
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size,) * nsp
    out = tuple(n if o is None else int(o) for n, o in zip(sizes, output_size))
    if len(out) != nsp or min(out) <= 0:
        raise ValueError(f"{fn}: output_size must be {nsp} positive sizes, got {output_size!r}")
    return _pool(x, nsp, _adaptive_table(sizes, out), out, return_indices, fn)


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """``F.adaptive_max_pool1d``: torch's bins, indices and tie rule."""
    return _adaptive(input, 1, output_size, return_indices, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """``F.adaptive_max_pool2d``: torch's bins (``None`` keeps a size), indices and tie rule."""
    return _adaptive(input, 2, output_size, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """``F.adaptive_max_pool3d``: torch's bins (``None`` keeps a size), indices and tie rule."""
    return _adaptive(input, 3, output_size, return_indices, "adaptive_max_pool3d")


class _Unpool(jt.Function):
    """``out.flat[idx] = x`` on zeros; the gradient of each input is the output gradient at its
    index (torch's ``max_unpool`` backward, a gather).  An index written twice (overlapping pool
    windows that chose the same element) holds the first writer's value, as torch's."""

    def execute(self, flat, idx, length):
        self.idx = idx
        B, n = (int(s) for s in flat.shape)
        # The first input position writing each output (int max: none), then one gather.
        writer = jt.index((B, n), 1).reindex_reduce("minimum", [B, length], ["i0", "@e0(i0,i1)"], extras=[idx])
        return flat.reindex([B, length], ["i0", "@e0(i0,i1)"], extras=[writer])

    def grad(self, g):
        B, n = self.idx.shape
        return g.reindex([B, n], ["i0", "@e0(i0,i1)"], extras=[self.idx]), None, None


def _max_unpool(x, indices, nsp, kernel_size, stride, padding, output_size, fn):
    lead, sizes = _split_batch(x, nsp, fn)
    k = _ntuple(kernel_size, nsp, f"{fn}: kernel_size")
    s = _ntuple(stride if stride not in (None, [], ()) else k, nsp, f"{fn}: stride")
    p = _ntuple(padding, nsp, f"{fn}: padding")
    if output_size is None:
        out = tuple((n - 1) * si - 2 * pi + ki for n, ki, si, pi in zip(sizes, k, s, p))
    else:
        out = tuple(int(o) for o in tuple(output_size)[-nsp:])
    B, n = int(np.prod(lead)), int(np.prod(sizes))
    length = int(np.prod(out))
    idx = indices.reshape(B, n).int32()
    y = _Unpool.apply(x.reshape(B, n), idx, length)
    return y.reshape(lead + out)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``F.max_unpool1d``: scatter ``input`` to ``indices`` of a zero map of torch's size."""
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``F.max_unpool2d``: scatter ``input`` to ``indices`` of a zero map of torch's size."""
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``F.max_unpool3d``: scatter ``input`` to ``indices`` of a zero map of torch's size."""
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d")


class _MaxPoolNd(Module):
    _fn = staticmethod(max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def execute(self, x):
        return self._fn(x, self.kernel_size, self.stride, self.padding, self.dilation,
                        self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """``torch.nn.MaxPool2d`` with torch's sizes, indices and tie rule."""


class MaxPool3d(_MaxPoolNd):
    """``torch.nn.MaxPool3d`` with torch's sizes, indices and tie rule."""
    _fn = staticmethod(max_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _fn = staticmethod(adaptive_max_pool2d)

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def execute(self, x):
        return self._fn(x, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """``torch.nn.AdaptiveMaxPool2d`` for any input and output size, with torch's tie rule."""


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """``torch.nn.AdaptiveMaxPool3d`` for any input and output size, with torch's tie rule."""
    _fn = staticmethod(adaptive_max_pool3d)


class _MaxUnpoolNd(Module):
    _fn = staticmethod(max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def execute(self, input, indices, output_size: Optional[Sequence[int]] = None):
        return self._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool1d``."""
    _fn = staticmethod(max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool2d``."""


class MaxUnpool3d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool3d``."""
    _fn = staticmethod(max_unpool3d)
