"""Indexing, reshaping and dimension ops with torch's argument conventions (negative dims, varargs):
broadcasting, flips and rotations, ``tile``, ``unfold``, ``diag_embed``, the size queries
(``numel``, ``is_same_size``, ...) and the ``T``/``mT``/``H``/``mH`` attributes of Vars."""
from __future__ import annotations

import builtins as _b

import jittor as jt
import numpy as np

from ._common import Dim, _dims, _size
from .broadcast_grad import widened

__all__ = ['index_select', 'roll', 'squeeze', 'where', 'nonzero', 't', 'swapaxes', 'movedim', 'narrow', 'flatten',
           'unflatten', 'permute', 'transpose', 'reshape_as', 'scatter', 'scatter_add', 'scatter_', 'scatter_add_',
           'channels_last', 'contiguous_format', 'preserve_format', 'meshgrid', 'stride', 'broadcast_shapes',
           'broadcast_to', 'broadcast_tensors', 'flip', 'fliplr', 'flipud', 'rot90', 'tile', 'ravel', 'swapdims',
           'moveaxis',
           'diag_embed', 'diagflat', 'unfold', 'is_nonzero', 'is_same_size', 'numel', 'nelement', 'ndimension',
           'is_contiguous']


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


def permute(input, *dims):
    """``torch.permute``/``Tensor.permute``: dims as varargs or one sequence, negatives allowed
    (Jittor's raises for negative dims)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return input.permute([int(d) % input.ndim for d in dims])


def transpose(input, dim0: int, dim1: int):
    """``torch.transpose`` with negative dims."""
    return swapaxes(input, dim0, dim1)


def reshape_as(input, other):
    """``Tensor.reshape_as``."""
    return input.reshape(tuple(other.shape))


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


channels_last = "channels_last"
contiguous_format = "contiguous_format"
preserve_format = "preserve_format"


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


def stride(input, dim=None):
    """``Tensor.stride()``: a Var is always stored C-contiguous, so its strides (in elements)
    follow from its shape; ``stride(dim)`` gives one."""
    shape = [int(n) for n in input.shape]
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    strides = tuple(reversed(strides))
    return strides if dim is None else strides[dim]


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes``: the broadcast of the given sizes (a tuple)."""
    shapes = [(s,) if isinstance(s, int) else tuple(int(v) for v in s) for s in shapes]
    n = _b.max([len(s) for s in shapes] + [0])
    out = [1] * n
    for s in shapes:
        for i, v in enumerate((1,) * (n - len(s)) + s):
            if v != 1:
                if out[i] not in (1, v):
                    raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape: {shapes}")
                out[i] = v
    return tuple(out)


def broadcast_to(input, size):
    """``torch.broadcast_to`` / ``Tensor.broadcast_to`` (``-1`` keeps a dim)."""
    size = _size((size,))
    lead = len(size) - input.ndim
    if lead < 0:
        raise RuntimeError(f"broadcast_to: the target {size} has fewer dims than the input {tuple(input.shape)}")
    want = tuple(int(input.shape[i - lead]) if s == -1 else s for i, s in enumerate(size))
    if tuple(input.shape) == want:
        return input
    out = widened(input, want)
    return out if out is not input else input.broadcast(want)


def broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``."""
    shape = broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(broadcast_to(t, shape) for t in tensors)


def flip(input, dims, *args):
    """``torch.flip(input, dims)`` / ``Tensor.flip(*dims)``: dims as an int, a list or a tuple,
    negatives too. Jittor's ``flip`` writes the normalised dims back into the sequence it is
    given: a tuple with a negative dim raises ``TypeError``, and a caller's list is changed."""
    dims = (dims, *args) if args else dims
    dims = [dims] if isinstance(dims, int) else list(dims)
    nd = input.ndim
    for d in dims:
        if not -nd <= int(d) < nd:
            raise IndexError(f"flip: dimension {d} out of range for a tensor of {nd} dims")
    return input.flip([int(d) % nd for d in dims]) if dims else input.clone()


def fliplr(input):
    """``torch.fliplr``: reverse dim 1."""
    return input.flip(1)


def flipud(input):
    """``torch.flipud``: reverse dim 0."""
    return input.flip(0)


def rot90(input, k: int = 1, dims=(0, 1)):
    """``torch.rot90``: ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``."""
    d0, d1 = (d % input.ndim for d in dims)
    k = k % 4
    if k == 0:
        return input
    if k == 2:
        return input.flip(d0).flip(d1)
    perm = list(range(input.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:
        return input.flip(d1).permute(*perm)
    return input.permute(*perm).flip(d1)


def tile(input, dims, *more):
    """``torch.tile``: ``repeat`` with the reps left-padded with ones (either side)."""
    reps = _size((dims,) + more if more else (dims,))
    if len(reps) < input.ndim:
        reps = (1,) * (input.ndim - len(reps)) + reps
    x = input.reshape((1,) * (len(reps) - input.ndim) + tuple(input.shape))
    return x.repeat(*reps)


def ravel(input):
    """``torch.ravel``."""
    return input.reshape(-1)


def swapdims(input, dim0: int, dim1: int):
    """``torch.swapdims``/``swapaxes``."""
    perm = list(range(input.ndim))
    a, b = dim0 % input.ndim, dim1 % input.ndim
    perm[a], perm[b] = perm[b], perm[a]
    return input.permute(*perm)


def moveaxis(input, source, destination):
    """``torch.moveaxis`` (= ``movedim``)."""
    return movedim(input, source, destination)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """``torch.diag_embed``: the last dim of ``input`` on the diagonal ``offset`` of new dims."""
    n = int(input.shape[-1]) + abs(offset)
    rows = np.arange(int(input.shape[-1])) + _b.max(-offset, 0)
    cols = np.arange(int(input.shape[-1])) + _b.max(offset, 0)
    place = np.zeros((int(input.shape[-1]), n, n), np.float32)
    place[np.arange(len(rows)), rows, cols] = 1
    y = (input.unsqueeze(-1).unsqueeze(-1) * jt.array(place).cast(input.dtype)).sum(input.ndim - 1)
    nd = y.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    if (d1, d2) == (nd - 2, nd - 1):
        return y
    return movedim(y, (nd - 2, nd - 1), (d1, d2))


def diagflat(input, offset: int = 0):
    """``torch.diagflat``."""
    return diag_embed(input.reshape(-1), offset)


def unfold(input, dimension: int, size: int, step: int):
    """``Tensor.unfold``: windows of ``size`` every ``step`` along ``dimension``, as a new last dim."""
    d = dimension % input.ndim if input.ndim else 0
    length = int(input.shape[d]) if input.ndim else 1
    count = (length - size) // step + 1
    idx = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    x = movedim(input, d, 0)[jt.array(idx.astype(np.int32))]  # (count*size, ...)
    x = x.reshape((count, size) + tuple(x.shape[1:]))
    return movedim(movedim(x, 1, -1), 0, d)


def is_nonzero(input) -> bool:
    """``torch.is_nonzero`` of a one-element tensor."""
    if int(input.numel()) != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def is_same_size(input, other) -> bool:
    """``Tensor.is_same_size``."""
    return tuple(input.shape) == tuple(other.shape)


def numel(input) -> int:
    """``torch.numel`` (a Python int)."""
    return int(np.prod(input.shape)) if input.ndim else 1


def nelement(input) -> int:
    """``Tensor.nelement`` (= ``numel``)."""
    return numel(input)


def ndimension(input) -> int:
    """``Tensor.ndimension``."""
    return input.ndim


def is_contiguous(input, memory_format=None) -> bool:
    """``Tensor.is_contiguous``: Jittor Vars are always dense (True)."""
    return True


# torch's transposing attributes on Vars (Jittor has none): ``x.T`` reverses the dims, ``x.mT``
# swaps the last two; ``H``/``mH`` are the same for real tensors
def _T(self):
    return self.permute(*range(self.ndim - 1, -1, -1)) if self.ndim > 1 else self


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return swapdims(self, -2, -1)


for _name, _fn in (("T", _T), ("mT", _mT), ("H", _T), ("mH", _mT)):
    if not hasattr(jt.Var, _name):
        setattr(jt.Var, _name, property(_fn))
del _name, _fn
