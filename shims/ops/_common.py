"""Helpers the op modules share: dims normalisation, integer dtypes, keepdim shapes, float sums."""
from __future__ import annotations

import builtins as _b
from typing import Sequence, Tuple, Union

import jittor as jt
import numpy as np


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


class _ValuesIndices(tuple):
    """torch's ``(values, indices)`` named tuple (``torch.return_types.max`` & co)."""

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _scaled(x, s):
    return x if s == 1 else x * s


_FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16")


def _device_free(requires_grad: bool, y):
    """A new tensor: a leaf of the gradient store (``shims.autograd``) with ``requires_grad``,
    else gradient-stopped (torch's default for created tensors)."""
    return y.requires_grad_(True) if requires_grad else y.stop_grad()


def _size(size) -> tuple:
    """Sizes given as varargs, one tuple/list/``torch.Size``, or one-element Vars."""
    if len(size) == 1 and (isinstance(size[0], (tuple, list)) or type(size[0]).__name__ == "NanoVector"):
        size = tuple(size[0])
    return tuple(int(s.item()) if isinstance(s, jt.Var) else int(s) for s in size)


def _inplace(fn, name):
    """The in-place method ``x.<name>(...)``: ``x`` takes the value of ``fn(x, ...)`` (the
    graph stays differentiable: Jittor's ``assign`` rebinds the Var)."""
    def f(input, *args, **kwargs):
        return input.assign(fn(input, *args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"``Tensor.{name}``: in-place ``{fn.__name__}``."
    return f


_SHORT_FLOATS = ("float32", "float16", "bfloat16")


def _sums_wide(x) -> bool:
    """Whether a sum of ``x`` accumulates in float64 (:func:`float_sum`)."""
    return str(x.dtype) in _SHORT_FLOATS and not jt.flags.use_cuda


def float_sum(x, dims: Tuple[int, ...], keepdims: bool = False):
    """``x.sum(dims)`` with torch's accuracy for float32 (and narrower) inputs on the CPU.

    Jittor's CPU reductions add the terms one after another in the input's type: summing
    6,144 float32 terms came out 16x further from the exact sum than torch's (which sums in
    blocks), 10^6 terms 3,600x (measured, 2026-11-26), and MCCNet's losses turned that into its
    whole float32 gap to torch. Such sums accumulate in float64 here and round once at the end;
    CUDA reductions (a tree) are left as they are."""
    if _sums_wide(x):
        return x.float64().sum(dims, keepdims=keepdims).cast(x.dtype)
    return x.sum(dims, keepdims=keepdims)


def float_mean(x, dims: Tuple[int, ...], keepdims: bool = False):
    """``x.mean(dims)`` accumulated as :func:`float_sum` accumulates."""
    if _sums_wide(x):
        return x.float64().mean(dims, keepdims=keepdims).cast(x.dtype)
    return x.mean(dims, keepdims=keepdims)


def scalar_dtype(var: jt.Var, scalar) -> str:
    """The dtype torch gives ``var OP scalar`` for a Python number: the Var's, except an integer
    Var with a float scalar (the default float dtype, float32)."""
    floating = str(var.dtype).startswith(("float", "bfloat"))
    return str(var.dtype) if floating or isinstance(scalar, int) else "float32"


def exact_scalar(value, dtype) -> jt.Var:
    """``value`` as a shape-(1,) Var of ``dtype``, exact in float64 too (``jt.full`` and Jittor's
    scalar operands round a Python float through float32)."""
    name = str(dtype)
    with jt.flag_scope(auto_convert_64_to_32=0):
        if name == "bfloat16":
            return jt.array(np.array([value], np.float32)).cast(name)
        return jt.array(np.array([value], np.dtype(name)))
