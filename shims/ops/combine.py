"""Splitting tensors and putting them together as torch does: ``tensor_split`` and its
``h``/``v``/``dsplit`` forms, ``split_with_sizes``, the ``atleast_*d`` promotions, the
``h``/``v``/``d``/``column_stack`` concatenations, ``block_diag``, ``cartesian_prod`` and
``combinations`` (index tuples built on the host).
"""
from __future__ import annotations

import builtins as _b
import itertools

import jittor as jt
import numpy as np

from .shape import meshgrid

__all__ = [
    "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack",
    "dstack", "column_stack", "block_diag", "cartesian_prod", "combinations", "split_with_sizes", "unsafe_split",
    "unsafe_chunk",
]


def tensor_split(input, indices_or_sections, dim: int = 0):
    """``torch.tensor_split``: ``n`` near-equal parts (the first ``size % n`` one longer) or
    splits before the given indices."""
    d = dim % input.ndim
    size = int(input.shape[d])
    if isinstance(indices_or_sections, jt.Var):
        indices_or_sections = indices_or_sections.numpy().tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        q, r = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            end = start + q + (1 if i < r else 0)
            bounds.append((start, end))
            start = end
    else:
        cuts = [_b.min(_b.max(int(i) if i >= 0 else size + int(i), 0), size) for i in indices_or_sections]
        cuts = [0] + cuts + [size]
        bounds = [(cuts[i], _b.max(cuts[i], cuts[i + 1])) for i in range(len(cuts) - 1)]
    return tuple(input[(slice(None),) * d + (slice(a, b),)] for a, b in bounds)


def hsplit(input, sections):
    """``torch.hsplit``: split along dim 1 (dim 0 for 1-D input)."""
    return tensor_split(input, sections, 1 if input.ndim > 1 else 0)


def vsplit(input, sections):
    """``torch.vsplit``: split along dim 0."""
    return tensor_split(input, sections, 0)


def dsplit(input, sections):
    """``torch.dsplit``: split along dim 2."""
    return tensor_split(input, sections, 2)


def atleast_1d(*tensors):
    """``torch.atleast_1d``."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1) if t.ndim == 0 else t for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


def atleast_2d(*tensors):
    """``torch.atleast_2d``: 1-D becomes (1, n)."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1, -1) if t.ndim <= 1 else t for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


def atleast_3d(*tensors):
    """``torch.atleast_3d``: 1-D (n) -> (1, n, 1), 2-D (a, b) -> (a, b, 1)."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors

    def one(t):
        if t.ndim <= 1:
            return t.reshape(1, -1, 1)
        if t.ndim == 2:
            return t.unsqueeze(-1)
        return t
    out = tuple(one(t) for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


def hstack(tensors, *, out=None):
    """``torch.hstack``: concatenate along dim 1 (dim 0 for 1-D tensors)."""
    ts = atleast_1d(list(tensors))
    return jt.concat(list(ts), 0 if ts[0].ndim == 1 else 1)


def vstack(tensors, *, out=None):
    """``torch.vstack`` / ``row_stack``: concatenate the at-least-2-D tensors along dim 0."""
    return jt.concat(list(atleast_2d(list(tensors))), 0)


def dstack(tensors, *, out=None):
    """``torch.dstack``: concatenate the at-least-3-D tensors along dim 2."""
    return jt.concat(list(atleast_3d(list(tensors))), 2)


def column_stack(tensors, *, out=None):
    """``torch.column_stack``: 0-/1-D tensors become columns, then ``hstack``."""
    cols = [t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors]
    return jt.concat(cols, 1)


def block_diag(*tensors):
    """``torch.block_diag``."""
    ts = [t.reshape(1, -1) if t.ndim == 1 else (t.reshape(1, 1) if t.ndim == 0 else t) for t in tensors]
    rows = _b.sum(int(t.shape[0]) for t in ts)
    cols = _b.sum(int(t.shape[1]) for t in ts)
    dtype = ts[0].dtype
    out_rows, c0 = [], 0
    for t in ts:
        r, c = int(t.shape[0]), int(t.shape[1])
        parts = [p for p in (jt.zeros((r, c0), dtype=dtype) if c0 else None, t.cast(dtype),
                             jt.zeros((r, cols - c0 - c), dtype=dtype) if cols - c0 - c else None) if p is not None]
        out_rows.append(jt.concat(parts, 1) if len(parts) > 1 else parts[0])
        c0 += c
    return jt.concat(out_rows, 0) if rows else jt.zeros((0, cols), dtype=dtype)


def cartesian_prod(*tensors):
    """``torch.cartesian_prod``."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return jt.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r: int = 2, with_replacement: bool = False):
    """``torch.combinations`` of a 1-D tensor (index tuples built on the host)."""
    n = int(input.shape[0])
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    it = pick(range(n), r)
    idx = np.array(list(it), np.int32).reshape(-1, r)
    if idx.size == 0:
        return jt.zeros((0, r), dtype=input.dtype)
    return jt.stack([input[jt.array(idx[:, j])] for j in range(r)], 1)


def split_with_sizes(input, split_sizes, dim: int = 0):
    """``Tensor.split_with_sizes``."""
    d = dim % input.ndim
    out, start = [], 0
    for n in split_sizes:
        out.append(input[(slice(None),) * d + (slice(start, start + int(n)),)])
        start += int(n)
    return tuple(out)


def unsafe_split(input, split_size, dim: int = 0):
    """``torch.unsafe_split`` (= ``split``)."""
    if isinstance(split_size, (list, tuple)):
        return split_with_sizes(input, split_size, dim)
    d = dim % input.ndim
    n = int(input.shape[d])
    return split_with_sizes(input, [min(split_size, n - i) for i in range(0, n, split_size)], d)


def unsafe_chunk(input, chunks: int, dim: int = 0):
    """``torch.unsafe_chunk`` (= ``chunk``)."""
    d = dim % input.ndim
    n = int(input.shape[d])
    size = -(-n // chunks)
    return unsafe_split(input, size, d)
