"""More tensor calls with torch's semantics (issue 17): the ``new_*`` factories with sizes as
varargs, ``type``/``byte``/``char``/``short`` casts, ``broadcast_to``, in-place comparisons and
logical ops, in-place forms of torch's functions (``torch.sigmoid_(x)``), and shape, indexing,
reduction and elementwise ops Jittor lacks (``tile``, ``fliplr``, ``rot90``, ``tensor_split``,
``take_along_dim``, ``index_add``, ``kthvalue``, ``quantile``, ``logcumsumexp``, ``diff``,
``cov``, ...).  All are compositions of Jittor ops (differentiable where torch is), except a
few integer-valued ones computed on the host (``bincount``, ``unique_consecutive``,
``tril_indices``), as noted.

Jittor has no complex dtype: ``is_complex`` is always False, ``real``/``conj``/``resolve_conj``
of a real tensor are the tensor itself (as torch's), and complex constructors are marked
unsupported by the table.
"""
from __future__ import annotations

import builtins as _b
import math
from typing import Optional

import jittor as jt
import numpy as np

from ._common import _FLOAT_DTYPES, _ValuesIndices, _is_int
from .pointwise import _INPLACE, atan2, clamp, nan_to_num

__all__ = [
    "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "tensor_type", "byte", "char", "short",
    "broadcast_to", "broadcast_tensors", "broadcast_shapes", "fliplr", "flipud", "rot90", "tile", "ravel",
    "select", "take", "take_along_dim", "tensor_split", "hsplit", "vsplit", "dsplit", "hstack", "vstack",
    "dstack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "swapdims", "moveaxis", "diag_embed",
    "diagflat", "block_diag", "cartesian_prod", "tril_indices", "triu_indices", "index_add", "index_copy",
    "index_fill", "masked_select", "unfold", "inner", "vdot", "ldexp", "logaddexp2", "heaviside", "float_power",
    "sinc", "signbit", "positive", "logcumsumexp", "cummax", "cummin", "kthvalue", "msort", "quantile",
    "nanquantile", "nansum", "nanmean", "aminmax", "argwhere", "bincount", "histc", "diff", "cov", "corrcoef",
    "trapezoid", "cumulative_trapezoid", "vander", "renorm", "isclose", "allclose", "is_complex",
    "is_floating_point", "is_signed", "is_nonzero", "is_same_size", "numel", "nelement", "ndimension",
    "element_size", "real", "conj", "angle", "is_conj", "is_neg", "resolve_conj", "resolve_neg",
    "is_contiguous", "fill_diagonal_",
    "unique_consecutive", "rsub", "scalar_tensor", "clamp_min_", "clamp_max_", "squeeze_", "unsqueeze_",
    "t_", "transpose_", "swapdims_", "swapaxes_", "tril_", "triu_", "index_add_", "index_copy_", "index_fill_",
    "cumsum_", "cumprod_", "nan_to_num_", "float_power_", "ldexp_", "sinc_", "heaviside_", "arctan2",
    "arctan2_", "renorm_", "greater_", "greater_equal_", "less_",
    "less_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_", "bitwise_and_",
    "bitwise_or_", "bitwise_xor_", "bitwise_not", "bitwise_not_", "abs_", "sqrt_", "rsqrt_", "sigmoid_",
    "erf_", "erfinv_", "log2_", "deg2rad_", "rad2deg_", "zero_", "fill_", "selu_", "celu_", "threshold_",
    "elu_", "leaky_relu_", "hardtanh_", "detach_", "out_",
]

_DTYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor", "int32": "IntTensor",
    "int64": "LongTensor", "bool": "BoolTensor",
}
_NAME_DTYPES = {v: k for k, v in _DTYPE_NAMES.items()}


def _size(size) -> tuple:
    """Sizes given as varargs, one tuple/list/``torch.Size``, or one-element Vars."""
    if len(size) == 1 and (isinstance(size[0], (tuple, list)) or type(size[0]).__name__ == "NanoVector"):
        size = tuple(size[0])
    return tuple(int(s.item()) if isinstance(s, jt.Var) else int(s) for s in size)


def _grad(y, requires_grad: bool):
    return y.start_grad() if requires_grad else y.stop_grad()


# -- factories ------------------------------------------------------------------------------

def new_zeros(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_zeros(*size)``: sizes as varargs or one sequence; the input's dtype by default."""
    return _grad(jt.zeros(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_ones(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_ones(*size)``."""
    return _grad(jt.ones(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_empty(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_empty(*size)`` (zeros: Jittor has no uninitialised allocation)."""
    return _grad(jt.zeros(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_full(input, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
             pin_memory=False):
    """``Tensor.new_full(size, fill_value)``."""
    return _grad(jt.full(_size((size,)), fill_value, dtype=dtype or input.dtype), requires_grad)


def new_tensor(input, data, *, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_tensor(data)``: a copy of ``data`` with the input's dtype by default."""
    value = data.numpy() if isinstance(data, jt.Var) else np.asarray(data)
    return _grad(jt.array(value).cast(dtype or input.dtype), requires_grad)


# -- dtype casts ----------------------------------------------------------------------------

def _dtype_of(dtype):
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if name not in _NAME_DTYPES:
            raise ValueError(f"invalid type: {dtype!r}")
        return _NAME_DTYPES[name]
    inner = getattr(dtype, "_dtype", None)  # shims.FloatTensor & co (torch.FloatTensor converted)
    return inner if inner is not None else dtype


def tensor_type(input, dtype=None, non_blocking: bool = False, **kwargs):
    """``Tensor.type()``: with no argument torch's type name (``'torch.FloatTensor'``; int64
    tensors are int32 in Jittor, so ``'torch.IntTensor'``); with a dtype, a type name string
    (``'torch.cuda.FloatTensor'``) or a tensor class, the cast.  On a module, torch's
    ``Module.type``: every parameter and buffer cast."""
    if isinstance(input, jt.Module):
        return input._cast_floats(_dtype_of(dtype)) if hasattr(input, "_cast_floats") else input
    if dtype is None:
        return "torch." + _DTYPE_NAMES.get(str(input.dtype), str(input.dtype))
    return input.cast(_dtype_of(dtype))


def byte(input, memory_format=None):
    """``Tensor.byte()``: uint8."""
    return input.cast("uint8")


def char(input, memory_format=None):
    """``Tensor.char()``: int8."""
    return input.cast("int8")


def short(input, memory_format=None):
    """``Tensor.short()``: int16."""
    return input.cast("int16")


# -- broadcasting and shapes -----------------------------------------------------------------

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
    return input.broadcast(want)


def broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``."""
    shape = broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(broadcast_to(t, shape) for t in tensors)


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


def swapdims(input, dim0: int, dim1: int):
    """``torch.swapdims``/``swapaxes``."""
    perm = list(range(input.ndim))
    a, b = dim0 % input.ndim, dim1 % input.ndim
    perm[a], perm[b] = perm[b], perm[a]
    return input.permute(*perm)


def moveaxis(input, source, destination):
    """``torch.moveaxis`` (= ``movedim``)."""
    from .shape import movedim
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
    from .shape import movedim
    return movedim(y, (nd - 2, nd - 1), (d1, d2))


def diagflat(input, offset: int = 0):
    """``torch.diagflat``."""
    return diag_embed(input.reshape(-1), offset)


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
    from .shape import meshgrid
    grids = meshgrid(*tensors, indexing="ij")
    return jt.stack([g.reshape(-1) for g in grids], 1)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """``torch.tril_indices`` (computed on the host: a constant)."""
    r, c = np.tril_indices(row, offset, col)
    return jt.array(np.stack([r, c]).astype(np.int64)).cast(dtype or "int64")


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """``torch.triu_indices`` (computed on the host: a constant)."""
    r, c = np.triu_indices(row, offset, col)
    return jt.array(np.stack([r, c]).astype(np.int64)).cast(dtype or "int64")


# -- indexing -------------------------------------------------------------------------------

def _onehot_rows(index, n: int, dtype):
    idx = index.reshape(-1)
    return (idx.reshape(-1, 1) == jt.arange(n).reshape(1, n)).cast(dtype)  # (len(index), n)


def _along(fn, input, dim: int, *others):
    """Apply ``fn`` to ``input`` (and ``others``) with ``dim`` moved first, then move it back."""
    from .shape import movedim
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


def unfold(input, dimension: int, size: int, step: int):
    """``Tensor.unfold``: windows of ``size`` every ``step`` along ``dimension``, as a new last dim."""
    d = dimension % input.ndim if input.ndim else 0
    length = int(input.shape[d]) if input.ndim else 1
    count = (length - size) // step + 1
    idx = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    from .shape import movedim
    x = movedim(input, d, 0)[jt.array(idx.astype(np.int32))]  # (count*size, ...)
    x = x.reshape((count, size) + tuple(x.shape[1:]))
    return movedim(movedim(x, 1, -1), 0, d)


# -- elementwise ----------------------------------------------------------------------------

def inner(input, other):
    """``torch.inner``: sum over the last dims (scalars multiply)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    a = input.reshape(-1, int(input.shape[-1]))
    b = other.reshape(-1, int(other.shape[-1]))
    return jt.matmul(a, b.transpose(1, 0)).reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def vdot(input, other):
    """``torch.vdot`` for real 1-D tensors."""
    return (input * other).sum()


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


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad: bool = False, pin_memory=False):
    """``torch.scalar_tensor`` (float32 by default; shape (1,): Jittor has no 0-d Vars)."""
    return _grad(jt.array(float(s)).cast(dtype or "float32"), requires_grad)


def bitwise_not(input):
    """``torch.bitwise_not`` (logical not for bool)."""
    if str(input.dtype) == "bool":
        return input.logical_not()
    return -input - 1


# -- scans and reductions --------------------------------------------------------------------

def logcumsumexp(input, dim: int):
    """``torch.logcumsumexp``: ``log(cumsum(exp(x)))``, shifted by the max along ``dim``."""
    m = input.max(dim, keepdims=True).stop_grad()
    return (input - m).exp().cumsum(dim).log() + m


def _cum_extreme(input, dim: int, take_max: bool):
    from .shape import movedim
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


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan):
    qs = q if isinstance(q, (list, tuple)) else (q.numpy().tolist() if isinstance(q, jt.Var) else q)
    scalar_q = not isinstance(qs, (list, tuple)) and not (isinstance(q, jt.Var) and q.ndim > 0 and int(q.numel()) > 1)
    qs = [float(v) for v in (qs if isinstance(qs, (list, tuple)) else [qs])]
    if dim is None:
        x = x.reshape(-1)
        d = 0
    else:
        d = dim % x.ndim
    from .shape import movedim
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


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """``torch.nansum``: NaNs count as zero."""
    from .reduce import sum as _sum
    return _sum(jt.ternary(input.isnan(), jt.zeros_like(input), input), dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """``torch.nanmean``: the mean of the non-NaN elements."""
    from .reduce import sum as _sum
    keep = input.isnan().logical_not().cast(input.dtype)
    return nansum(input, dim, keepdim, dtype=dtype) / _sum(keep, dim, keepdim)


def aminmax(input, *, dim=None, keepdim: bool = False):
    """``torch.aminmax``: ``(min, max)``."""
    from .reduce import amax, amin
    d = () if dim is None else dim
    return _ValuesIndices((amin(input, d, keepdim), amax(input, d, keepdim)))


def argwhere(input):
    """``torch.argwhere``: the indices of the non-zero elements, one row each."""
    from .shape import nonzero
    return nonzero(input)


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


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """``torch.trapezoid``/``trapz``: the trapezoidal rule along ``dim`` (spacing ``dx`` or sample
    points ``x``)."""
    d = dim % y.ndim
    n = int(y.shape[d])
    a = y[(slice(None),) * d + (slice(1, n),)]
    b = y[(slice(None),) * d + (slice(0, n - 1),)]
    if x is None:
        return ((a + b) * ((1.0 if dx is None else dx) / 2.0)).sum(d)
    dxs = diff(x, dim=dim if x.ndim == y.ndim else -1)
    if x.ndim != y.ndim:
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return ((a + b) * dxs / 2.0).sum(d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """``torch.cumulative_trapezoid``."""
    d = dim % y.ndim
    n = int(y.shape[d])
    a = y[(slice(None),) * d + (slice(1, n),)]
    b = y[(slice(None),) * d + (slice(0, n - 1),)]
    if x is None:
        return ((a + b) * ((1.0 if dx is None else dx) / 2.0)).cumsum(d)
    dxs = diff(x, dim=dim if x.ndim == y.ndim else -1)
    if x.ndim != y.ndim:
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return ((a + b) * dxs / 2.0).cumsum(d)


def vander(x, N: Optional[int] = None, increasing: bool = False):
    """``torch.vander``: powers of ``x`` as columns (decreasing by default)."""
    n = int(x.shape[0]) if N is None else N
    powers = range(n) if increasing else range(n - 1, -1, -1)
    cols = [x ** p if p else jt.ones_like(x) for p in powers]
    return jt.stack(cols, 1) if n else jt.zeros((int(x.shape[0]), 0), dtype=x.dtype)


def renorm(input, p: float, dim: int, maxnorm: float):
    """``torch.renorm``: each slice along ``dim`` with p-norm above ``maxnorm`` rescaled to it."""
    d = dim % input.ndim
    others = tuple(i for i in range(input.ndim) if i != d)
    norm = (input.abs() ** p).sum(others, keepdims=True) ** (1.0 / p)
    factor = jt.ternary(norm > maxnorm, maxnorm / (norm + 1e-7), jt.ones_like(norm))
    return input * factor


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


# -- queries --------------------------------------------------------------------------------

def is_complex(input) -> bool:
    """``torch.is_complex``: Jittor has no complex dtype (always False)."""
    return False


def is_floating_point(input) -> bool:
    """``torch.is_floating_point``."""
    return str(input.dtype) in _FLOAT_DTYPES


def is_signed(input) -> bool:
    """``Tensor.is_signed``."""
    return str(input.dtype) not in ("uint8", "uint16", "uint32", "uint64", "bool")


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


def element_size(input) -> int:
    """``Tensor.element_size``: bytes per element."""
    return int(np.dtype(str(input.dtype) if str(input.dtype) != "bfloat16" else "float16").itemsize)


def real(input):
    """``torch.real`` of a real tensor: the tensor itself."""
    return input


def conj(input):
    """``torch.conj`` of a real tensor: the tensor itself."""
    return input


def angle(input):
    """``torch.angle`` of a real tensor: 0 for x >= 0, pi for x < 0 (NaN stays NaN); gradient 0."""
    pi = jt.full_like(input, math.pi)
    return jt.ternary(input < 0, pi, input * 0).stop_grad() + input * 0


def is_conj(input) -> bool:
    """``torch.is_conj``: False (Jittor has no lazy conjugation)."""
    return False


def is_neg(input) -> bool:
    """``torch.is_neg``: False (Jittor has no lazy negation)."""
    return False


def resolve_conj(input):
    """``torch.resolve_conj``: the tensor itself (Jittor has no lazy conjugation)."""
    return input


def resolve_neg(input):
    """``torch.resolve_neg``: the tensor itself (Jittor has no lazy negation)."""
    return input


def is_contiguous(input, memory_format=None) -> bool:
    """``Tensor.is_contiguous``: Jittor Vars are always dense (True)."""
    return True


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """``torch.unique_consecutive`` (computed on the host; flattened input, as torch without ``dim``)."""
    if dim is not None:
        raise NotImplementedError("unique_consecutive(dim=...) is not supported")
    a = input.numpy().reshape(-1)
    if a.size == 0:
        starts = np.zeros(0, np.int64)
    else:
        starts = np.concatenate([[0], np.nonzero(a[1:] != a[:-1])[0] + 1])
    values = jt.array(a[starts]) if a.size else jt.array(a)
    out = [values]
    if return_inverse:
        inv = np.cumsum(np.concatenate([[0], (a[1:] != a[:-1]).astype(np.int64)])) if a.size else a.astype(np.int64)
        out.append(jt.array(inv.reshape(tuple(input.shape)).astype(np.int64)))
    if return_counts:
        counts = np.diff(np.concatenate([starts, [a.size]])) if a.size else np.zeros(0, np.int64)
        out.append(jt.array(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


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


# -- in-place forms -------------------------------------------------------------------------

def _inplace(fn, name):
    def f(input, *args, **kwargs):
        return input.assign(fn(input, *args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"``{name}``: ``input`` takes the value of ``{fn.__name__}`` in place."
    return f


def _clamp_min(x, min):
    return clamp(x, min=min)


def _clamp_max(x, max):
    return clamp(x, max=max)


def _same_dtype(fn):
    def g(a, *args, **kw):
        return fn(a, *args, **kw).cast(a.dtype)
    g.__name__ = fn.__name__
    return g


def _from_functional(name):
    def g(x, *args, **kw):
        from . import functional as F
        return getattr(F, name)(x, *args, **kw)
    g.__name__ = name
    return g


def _elu(x, alpha=1.0, inplace=False):
    return jt.ternary(x > 0, x, alpha * (x.exp() - 1.0))


def _leaky(x, negative_slope=0.01, inplace=False):
    return jt.ternary(x >= 0, x, x * negative_slope)


def _squeeze(x, dim=None):
    from .shape import squeeze
    return squeeze(x, dim)


def _transpose(x, dim0, dim1):
    return swapdims(x, dim0, dim1)


def _t(x):
    return x if x.ndim < 2 else swapdims(x, 0, 1)


clamp_min_ = _inplace(_clamp_min, "clamp_min_")
clamp_max_ = _inplace(_clamp_max, "clamp_max_")
squeeze_ = _inplace(_squeeze, "squeeze_")
unsqueeze_ = _inplace(lambda x, dim: x.unsqueeze(dim), "unsqueeze_")
t_ = _inplace(_t, "t_")
transpose_ = _inplace(_transpose, "transpose_")
swapdims_ = _inplace(_transpose, "swapdims_")
swapaxes_ = _inplace(_transpose, "swapaxes_")
tril_ = _inplace(lambda x, diagonal=0: x.tril(diagonal), "tril_")
triu_ = _inplace(lambda x, diagonal=0: x.triu(diagonal), "triu_")
index_add_ = _inplace(index_add, "index_add_")
index_copy_ = _inplace(index_copy, "index_copy_")
index_fill_ = _inplace(index_fill, "index_fill_")
cumsum_ = _inplace(lambda x, dim, *, dtype=None: x.cumsum(dim).cast(dtype or x.dtype), "cumsum_")
def _cumprod(x, dim, *, dtype=None):
    from .reduce import cumprod
    return cumprod(x, dim, dtype=dtype)


cumprod_ = _inplace(_cumprod, "cumprod_")
nan_to_num_ = _inplace(nan_to_num, "nan_to_num_")
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


# torch's transposing attributes on Vars (Jittor has none): ``x.T`` reverses the dims, ``x.mT``
# swaps the last two; ``H``/``mH`` are the same for real tensors, and ``x.real`` is ``x``
def _T(self):
    return self.permute(*range(self.ndim - 1, -1, -1)) if self.ndim > 1 else self


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return swapdims(self, -2, -1)


def _real(self):
    return self


for _name, _fn in (("T", _T), ("mT", _mT), ("H", _T), ("mH", _mT), ("real", _real)):
    if not hasattr(jt.Var, _name):
        setattr(jt.Var, _name, property(_fn))
del _name, _fn


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


# -- batch 2: constants, windows, dtype promotion, scatter-like ops ----------------------------

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def _dname(d) -> str:
    """A dtype's name: ``jt.float32`` is a function, ``Var.dtype`` prints as its name."""
    name = getattr(d, "__name__", None)
    return name if name in _DTYPE_NAMES else str(d)


def _promote(a: str, b: str) -> str:
    a, b = _dname(a), _dname(b)
    cat = {"bool": 0}
    for d in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
        cat[d] = 1
    for d in ("float16", "bfloat16", "float32", "float64"):
        cat[d] = 2
    if cat[a] != cat[b]:
        return a if cat[a] > cat[b] else b
    if cat[a] == 2:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        order = ["float16", "bfloat16", "float32", "float64"]
        return max(a, b, key=order.index)
    return str(np.promote_types(a, b))


def promote_types(type1, type2):
    """``torch.promote_types``: torch's category rule (a float type wins over any integer type:
    int64 with float16 is float16, numpy would say float64)."""
    return getattr(jt, _promote(type1, type2))


def result_type(tensor1, tensor2):
    """``torch.result_type`` of two tensors or a tensor and a Python number: a number of a higher
    category (bool < int < float) than the tensor gives that category's default dtype (float32,
    int64), otherwise the tensor keeps its dtype; two tensors promote as ``promote_types``."""
    def cat(d: str) -> int:
        return 0 if d == "bool" else (2 if d.startswith(("float", "bfloat")) else 1)

    def scalar_dtype(v) -> str:
        return "bool" if isinstance(v, bool) else ("int64" if isinstance(v, int) else "float32")

    a_t, b_t = isinstance(tensor1, jt.Var), isinstance(tensor2, jt.Var)
    if a_t and b_t:
        return getattr(jt, _promote(tensor1.dtype, tensor2.dtype))
    if not a_t and not b_t:
        return getattr(jt, _promote(scalar_dtype(tensor1), scalar_dtype(tensor2)))
    t, v = (tensor1, tensor2) if a_t else (tensor2, tensor1)
    td, sd = _dname(t.dtype), scalar_dtype(v)
    return getattr(jt, sd if cat(sd) > cat(td) else td)


def can_cast(from_, to) -> bool:
    """``torch.can_cast``: no cast to a lower category (float to int, int to bool)."""
    rank = lambda d: 0 if d == "bool" else (2 if d.startswith(("float", "bfloat")) else 1)  # noqa: E731
    return rank(_dname(from_)) <= rank(_dname(to))


def _window(values: np.ndarray, dtype, requires_grad: bool):
    return _grad(jt.array(values.astype(np.float64)).cast(dtype or "float32"), requires_grad)


def _win_n(window_length: int, periodic: bool) -> int:
    return window_length + 1 if periodic else window_length


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False):
    """``torch.hann_window`` (periodic by default)."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False):
    """``torch.hamming_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """``torch.blackman_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    k = np.arange(n)
    w = 0.42 - 0.5 * np.cos(2 * np.pi * k / (n - 1)) + 0.08 * np.cos(4 * np.pi * k / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """``torch.bartlett_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    k = np.arange(n)
    w = 1 - np.abs(2 * k / (n - 1) - 1)
    return _window(w[:window_length], dtype, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False):
    """``torch.kaiser_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = np.kaiser(n, beta)
    return _window(w[:window_length], dtype, requires_grad)


def unravel_index(indices, shape):
    """``torch.unravel_index``: a tuple of coordinate tensors."""
    shape = _size((shape,))
    idx = indices if isinstance(indices, jt.Var) else jt.array(np.asarray(indices))
    out = []
    for s in reversed(shape):
        out.append(idx % s)
        idx = (idx - out[-1]) // s
    return tuple(reversed(out))


def combinations(input, r: int = 2, with_replacement: bool = False):
    """``torch.combinations`` of a 1-D tensor (index tuples built on the host)."""
    import itertools
    n = int(input.shape[0])
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    it = pick(range(n), r)
    idx = np.array(list(it), np.int32).reshape(-1, r)
    if idx.size == 0:
        return jt.zeros((0, r), dtype=input.dtype)
    return jt.stack([input[jt.array(idx[:, j])] for j in range(r)], 1)


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (``linalg.multi_dot``)."""
    ms = matrices[0] if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)) else matrices
    y = ms[0]
    for mat in ms[1:]:
        y = jt.matmul(y, mat)
    return y


def matrix_power(input, n: int):
    """``torch.matrix_power`` / ``linalg.matrix_power`` for n >= 0 (squaring)."""
    if n < 0:
        input, n = jt.linalg.inv(input), -n
    eye = jt.array(np.eye(int(input.shape[-1]), dtype=np.float32)).cast(input.dtype)
    result = eye.broadcast(tuple(input.shape)) if input.ndim > 2 else eye
    base = input
    while n:
        if n & 1:
            result = jt.matmul(result, base)
        n >>= 1
        if n:
            base = jt.matmul(base, base)
    return result


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """``torch.isin``."""
    e = elements if isinstance(elements, jt.Var) else jt.array(np.asarray(elements))
    t = test_elements if isinstance(test_elements, jt.Var) else jt.array(np.asarray(test_elements))
    hit = (e.reshape(-1, 1) == t.reshape(1, -1)).any(1).reshape(tuple(e.shape))
    return hit.logical_not() if invert else hit


def isreal(input):
    """``torch.isreal``: every element of a real tensor is real (all True)."""
    return jt.ones(tuple(input.shape), dtype="bool")


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
        return val[k:k + 1]
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


def pdist(input, p: float = 2.0):
    """``torch.pdist``: the p-norm distances of the row pairs i < j, in row-major order."""
    n = int(input.shape[0])
    ii, jj = np.triu_indices(n, 1)
    if ii.size == 0:
        return jt.zeros((0,), dtype=input.dtype)
    diff_ = input[jt.array(ii.astype(np.int32))] - input[jt.array(jj.astype(np.int32))]
    if p == 2:
        return (diff_ * diff_).sum(1).sqrt()
    if p == float("inf"):
        return diff_.abs().max(1)
    if p == 0:
        return (diff_ != 0).cast(input.dtype).sum(1)
    return (diff_.abs() ** p).sum(1) ** (1.0 / p)


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
    from .shape import movedim
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


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``torch.addr``: ``beta * input + alpha * outer(vec1, vec2)``."""
    o = vec1.reshape(-1, 1) * vec2.reshape(1, -1)
    return (input if beta == 1 else input * beta) + (o if alpha == 1 else o * alpha)


def feature_dropout(input, p: float, train: bool):
    """``torch.feature_dropout``: whole ``input[n, c]`` slices."""
    from ..nn.dropouts import _dropout
    return _dropout(input, p, train, True, False)


def detach(input):
    """``torch.detach``."""
    return input.detach()


def digamma(input):
    """``torch.digamma`` (Jittor's ``digamma`` is a Function class: ``jt.digamma()(x)``)."""
    return jt.digamma()(input)


def lgamma(input):
    """``torch.lgamma`` (Jittor's ``lgamma`` is a Function class)."""
    return jt.lgamma()(input)


def exponential_(input, lambd: float = 1.0, *, generator=None):
    """``Tensor.exponential_``: exponential draws with rate ``lambd``."""
    u = jt.rand(tuple(input.shape))
    return input.assign((-(1.0 - u).log() / lambd).cast(input.dtype))


def cauchy_(input, median: float = 0.0, sigma: float = 1.0, *, generator=None):
    """``Tensor.cauchy_``: Cauchy draws."""
    u = jt.rand(tuple(input.shape))
    return input.assign((median + sigma * (math.pi * (u - 0.5)).tan()).cast(input.dtype))


def log_normal_(input, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """``Tensor.log_normal_``: ``exp(N(mean, std))`` draws."""
    return input.assign((jt.randn(tuple(input.shape)) * std + mean).exp().cast(input.dtype))


def geometric_(input, p: float, *, generator=None):
    """``Tensor.geometric_``: the number of Bernoulli(p) trials to the first success (>= 1)."""
    u = jt.rand(tuple(input.shape))
    return input.assign(((1.0 - u).log() / math.log(1.0 - p)).ceil().cast(input.dtype))


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None):
    """``torch.multinomial`` (drawn on the host from Jittor's seeded generator; int64 indices)."""
    probs = input.numpy().astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    seed = int(jt.randint(0, 2 ** 31 - 1, (1,)).item())
    rng = np.random.default_rng(seed)
    out = []
    for row in rows:
        q = row / row.sum()
        if replacement:
            out.append(rng.choice(len(q), num_samples, replace=True, p=q))
        else:
            if num_samples > np.count_nonzero(q):
                raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
            out.append(rng.choice(len(q), num_samples, replace=False, p=q))
    res = np.stack(out).astype(np.int64)
    return jt.array(res.reshape(probs.shape[:-1] + (num_samples,)))


def new(input, *args, **kwargs):
    """``Tensor.new`` (deprecated): ``x.new(sizes...)`` zeros, ``x.new(data)`` a copy, of x's dtype."""
    if len(args) == 1 and not isinstance(args[0], int) and not type(args[0]).__name__ == "NanoVector":
        return new_tensor(input, args[0])
    return new_empty(input, *args)


def _itemsize(self):
    return element_size(self)


if not hasattr(jt.Var, "itemsize"):
    jt.Var.itemsize = property(_itemsize)

addr_ = _inplace(addr, "addr_")
addbmm_ = _inplace(
    lambda x, b1, b2, *, beta=1, alpha=1: _linalg("addbmm")(x, b1, b2, beta=beta, alpha=alpha), "addbmm_")
addmm_ = _inplace(lambda x, m1, m2, *, beta=1, alpha=1: _linalg("addmm")(x, m1, m2, beta=beta, alpha=alpha), "addmm_")
addmv_ = _inplace(lambda x, m, v, *, beta=1, alpha=1: _linalg("addmv")(x, m, v, beta=beta, alpha=alpha), "addmv_")
baddbmm_ = _inplace(lambda x, b1, b2, *, beta=1, alpha=1: jt.baddbmm(x, b1, b2, beta=beta, alpha=alpha), "baddbmm_")
digamma_ = _inplace(digamma, "digamma_")
lgamma_ = _inplace(lgamma, "lgamma_")
masked_scatter_ = _inplace(masked_scatter, "masked_scatter_")
index_put_ = _inplace(index_put, "index_put_")
put_ = _inplace(put, "put_")
bitwise_left_shift_ = _inplace(bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = _inplace(bitwise_right_shift, "bitwise_right_shift_")
dropout_ = _inplace(lambda x, p, train: __import__("shims.nn.dropouts", fromlist=["dropout"]).dropout(x, p, train),
                    "dropout_")
alpha_dropout_ = _inplace(
    lambda x, p, train: __import__("shims.nn.dropouts", fromlist=["x"]).alpha_dropout(x, p, train), "alpha_dropout_")
feature_dropout_ = _inplace(feature_dropout, "feature_dropout_")
feature_alpha_dropout_ = _inplace(
    lambda x, p, train: __import__("shims.nn.dropouts", fromlist=["x"]).feature_alpha_dropout(x, p, train),
    "feature_alpha_dropout_")


def _linalg(name):
    from . import linalg
    return getattr(linalg, name)


__all__ += [
    "pi", "e", "inf", "nan", "newaxis", "promote_types", "result_type", "can_cast", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window", "unravel_index", "combinations", "chain_matmul",
    "matrix_power", "isin", "isreal", "nanmedian", "pdist", "bitwise_left_shift", "bitwise_right_shift",
    "split_with_sizes", "unsafe_split", "unsafe_chunk", "select_scatter", "slice_scatter", "diagonal_scatter",
    "masked_scatter", "index_put", "put", "addr", "feature_dropout", "detach", "digamma", "lgamma", "exponential_",
    "cauchy_", "log_normal_", "geometric_", "multinomial", "new", "addr_", "addbmm_", "addmm_", "addmv_", "baddbmm_",
    "digamma_", "lgamma_", "masked_scatter_", "index_put_", "put_", "bitwise_left_shift_", "bitwise_right_shift_",
    "dropout_", "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_",
]


def data_of(input):
    """torch's ``x.data`` read: ``x`` detached from the graph (Jittor's own ``Var.data`` is a
    numpy array).  Anything that is not a Var (a dataset, a numpy array) gives its own
    ``.data``, so a read the converter could not prove to be a tensor's stays what it was."""
    if isinstance(input, jt.Var):
        return input.detach()
    return input.data


__all__ += ["data_of"]
