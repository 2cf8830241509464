"""Indexing by index tensors and masks, reading and writing: ``take``/``take_along_dim``,
``index_add``/``index_copy``/``index_fill``, ``masked_select``/``masked_scatter``,
``index_put``/``put``, the ``*_scatter`` ops, ``unravel_index``, ``argwhere`` and
``fill_diagonal_``.  Writes are one-hot products and masks, so they stay differentiable.
"""
from __future__ import annotations

import builtins as _b
from typing import Optional

import jittor as jt
import numpy as np

from ._common import _size
from .shape import broadcast_shapes, broadcast_tensors, broadcast_to, movedim, nonzero

__all__ = [
    "select", "take", "take_along_dim", "index_add", "index_copy", "index_fill", "masked_select", "argwhere",
    "fill_diagonal_", "unravel_index", "select_scatter", "slice_scatter", "diagonal_scatter", "masked_scatter",
    "index_put", "put",
]


def select(input, dim: int, index: int):
    """``torch.select``: index ``dim`` at ``index`` (the dim is removed)."""
    d = dim % input.ndim
    return input[(slice(None),) * d + (int(index),)]


def take(input, index):
    """``torch.take``: the flattened input at ``index`` (shape of ``index``)."""
    flat = input.reshape(-1)
    n = int(flat.shape[0])
    idx = index.reshape(-1)
    idx = jt.ternary(idx < 0, idx + n, idx)
    return flat[idx].reshape(tuple(index.shape))


def take_along_dim(input, indices, dim: Optional[int] = None):
    """``torch.take_along_dim`` (``gather`` after broadcasting the other dims)."""
    if dim is None:
        return take(input, indices)
    d = dim % input.ndim
    shape = list(broadcast_shapes(tuple(input.shape[:d]) + (1,) + tuple(input.shape[d + 1:]),
                                  tuple(indices.shape[:d]) + (1,) + tuple(indices.shape[d + 1:])))
    xs = list(shape)
    xs[d] = int(input.shape[d])
    ids = list(shape)
    ids[d] = int(indices.shape[d])
    return broadcast_to(input, tuple(xs)).gather(d, broadcast_to(indices, tuple(ids)))


def _onehot_rows(index, n: int, dtype):
    idx = index.reshape(-1)
    return (idx.reshape(-1, 1) == jt.arange(n).reshape(1, n)).cast(dtype)  # (len(index), n)


def _along(fn, input, dim: int, *others):
    """Apply ``fn`` to ``input`` (and ``others``) with ``dim`` moved first, then move it back."""
    d = dim % input.ndim
    moved = [movedim(t, d, 0) if t.ndim == input.ndim else t for t in (input,) + others]
    return movedim(fn(*moved), 0, d)


def index_add(input, dim: int, index, source, *, alpha=1):
    """``torch.index_add``: ``input[index[i]] += alpha * source[i]`` along ``dim`` (repeats add up)."""
    n = int(input.shape[dim % input.ndim])

    def f(x, src):
        oh = _onehot_rows(index, n, x.dtype)  # (k, n)
        add = jt.matmul(oh.transpose(1, 0), src.reshape(int(src.shape[0]), -1)).reshape(tuple(x.shape))
        return x + (add if alpha == 1 else add * alpha)
    return _along(f, input, dim, source if source.ndim else source.reshape(1))


def index_copy(input, dim: int, index, source):
    """``torch.index_copy``: ``input[index[i]] = source[i]`` along ``dim``."""
    n = int(input.shape[dim % input.ndim])

    def f(x, src):
        oh = _onehot_rows(index, n, x.dtype)
        hit = oh.sum(0).reshape((n,) + (1,) * (x.ndim - 1))
        put = jt.matmul(oh.transpose(1, 0), src.reshape(int(src.shape[0]), -1)).reshape(tuple(x.shape))
        return x * (1 - hit) + put
    return _along(f, input, dim, source)


def index_fill(input, dim: int, index, value):
    """``torch.index_fill``: the slices at ``index`` along ``dim`` set to ``value``."""
    d = dim % input.ndim
    n = int(input.shape[d])
    hit = _onehot_rows(index, n, "float32").sum(0) > 0
    shape = [1] * input.ndim
    shape[d] = n
    v = value if isinstance(value, jt.Var) else jt.array(value).cast(input.dtype)
    return jt.ternary(hit.reshape(shape).broadcast(tuple(input.shape)), v.broadcast(tuple(input.shape)), input)


def masked_select(input, mask):
    """``torch.masked_select``: the elements where ``mask`` (broadcast) is True, as 1-D."""
    x, m = broadcast_tensors(input, mask)
    idx = m.reshape(-1).nonzero().reshape(-1)
    return x.reshape(-1)[idx]


def argwhere(input):
    """``torch.argwhere``: the indices of the non-zero elements, one row each."""
    return nonzero(input)


def fill_diagonal_(input, fill_value, wrap: bool = False):
    """``Tensor.fill_diagonal_``: the main diagonal (all dims equal, or the first rows of a tall
    2-D matrix; ``wrap`` restarts after ``cols + 1`` rows, as torch)."""
    shape = tuple(int(s) for s in input.shape)
    mask = np.zeros(shape, bool)
    if input.ndim == 2:
        rows, cols = shape
        step = cols + 1
        flat = mask.reshape(-1)
        limit = rows * cols if wrap else _b.min(rows, cols) * cols
        flat[0:limit:step] = True
        if not wrap:
            flat[_b.min(rows, cols) * cols:] = False
    else:
        n = _b.min(shape)
        mask[tuple(np.arange(n) for _ in shape)] = True
    v = jt.full(shape, fill_value, dtype=input.dtype)
    return input.assign(jt.ternary(jt.array(mask), v, input))


def unravel_index(indices, shape):
    """``torch.unravel_index``: a tuple of coordinate tensors."""
    shape = _size((shape,))
    idx = indices if isinstance(indices, jt.Var) else jt.array(np.asarray(indices))
    out = []
    for s in reversed(shape):
        out.append(idx % s)
        idx = (idx - out[-1]) // s
    return tuple(reversed(out))


def select_scatter(input, src, dim: int, index: int):
    """``torch.select_scatter``: ``input`` with slice ``index`` of ``dim`` replaced by ``src``."""
    d = dim % input.ndim
    n = int(input.shape[d])
    i = index % n
    shape = [1] * input.ndim
    shape[d] = n
    hit = jt.array((np.arange(n) == i).reshape(shape))
    return jt.ternary(hit.broadcast(tuple(input.shape)), src.unsqueeze(d).broadcast(tuple(input.shape)), input)


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    """``torch.slice_scatter``: ``input`` with ``input[start:end:step]`` along ``dim`` replaced by ``src``."""
    d = dim % input.ndim
    n = int(input.shape[d])
    pos = np.arange(n)[slice(start, end, step)]
    onehot = np.zeros((len(pos), n), np.float32)
    onehot[np.arange(len(pos)), pos] = 1
    hit = onehot.sum(0) > 0

    def f(x, s):
        put = jt.matmul(jt.array(onehot.T).cast(x.dtype), s.reshape(len(pos), -1)).reshape(tuple(x.shape))
        mask = jt.array(hit.reshape((n,) + (1,) * (x.ndim - 1))).broadcast(tuple(x.shape))
        return jt.ternary(mask, put, x)
    return _along(f, input, d, src)


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """``torch.diagonal_scatter``: ``input`` with the diagonal (``offset``, ``dim1``, ``dim2``)
    replaced by ``src`` (whose last dim runs along the diagonal)."""
    d1, d2 = dim1 % input.ndim, dim2 % input.ndim
    x = movedim(input, (d1, d2), (-2, -1))
    r, c = int(x.shape[-2]), int(x.shape[-1])
    mask = np.eye(r, c, offset, dtype=bool)
    rows, cols = np.nonzero(mask)
    place = np.zeros((len(rows), r, c), np.float32)
    place[np.arange(len(rows)), rows, cols] = 1
    put = (src.unsqueeze(-1).unsqueeze(-1) * jt.array(place).cast(x.dtype)).sum(src.ndim - 1)
    y = jt.ternary(jt.array(mask).broadcast(tuple(x.shape)), put, x)
    return movedim(y, (-2, -1), (d1, d2))


def masked_scatter(input, mask, source):
    """``Tensor.masked_scatter``: the True positions of ``mask`` (broadcast), in row-major order,
    take consecutive elements of ``source``."""
    x, m = broadcast_tensors(input, mask)
    flat_m = m.reshape(-1).cast("int32")
    pos = (flat_m.cumsum(0) - 1)
    pos = jt.maximum(pos, 0)
    taken = source.reshape(-1)[pos]
    return jt.ternary(m.reshape(-1).bool(), taken, x.reshape(-1)).reshape(tuple(x.shape))


def index_put(input, indices, values, accumulate: bool = False):
    """``torch.index_put``: ``input[indices] = values`` (``accumulate``: repeated indices add up)."""
    idx = tuple(indices)
    if not accumulate:
        y = input.clone()
        y[idx] = values if isinstance(values, jt.Var) else jt.array(values).cast(input.dtype)
        return y
    shape = tuple(int(s) for s in input.shape)
    full = [i if isinstance(i, jt.Var) else jt.array(np.asarray(i)) for i in idx]
    full = list(broadcast_tensors(*full))
    lin = jt.zeros(tuple(full[0].shape), dtype="int32")
    for k, i in enumerate(full):
        lin = lin * shape[k] + (i % shape[k]).cast("int32")
    rest = shape[len(full):]
    flat = input.reshape((-1,) + rest)
    v = values if isinstance(values, jt.Var) else jt.array(values).cast(input.dtype)
    v = broadcast_to(v, tuple(lin.shape) + rest).reshape((-1,) + rest)
    return index_add(flat, 0, lin.reshape(-1), v).reshape(shape)


def put(input, index, source, accumulate: bool = False):
    """``Tensor.put``: the flattened input at ``index`` set to (``accumulate``: added) ``source``."""
    flat = input.reshape(-1)
    n = int(flat.shape[0])
    idx = index.reshape(-1)
    idx = jt.ternary(idx < 0, idx + n, idx)
    src = source.reshape(-1)
    y = index_add(flat, 0, idx, src) if accumulate else index_copy(flat, 0, idx, src)
    return y.reshape(tuple(input.shape))
