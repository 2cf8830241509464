"""torch 0.4-1.x idioms that torch 2.x still accepts: ``torch.autograd.Variable`` and the typed
tensor classes (``torch.ByteTensor``, ``torch.cuda.FloatTensor``, ...) used as constructors,
dtypes (``x.type(torch.cuda.FloatTensor)``) and in ``isinstance``.

Jittor places every Var by one global flag, so ``torch.cuda.FloatTensor`` is the same class as
``torch.FloatTensor`` here (what ``x.type('torch.cuda.FloatTensor')`` already does).
"""
from __future__ import annotations

import warnings

import jittor as jt

from ..ops._common import _device_free
from ..ops.creation import FloatTensor, LongTensor, _typed_tensor
from ..sparse import sparse_coo_tensor

__all__ = ["Variable", "sparse_FloatTensor", "sparse_DoubleTensor", "sparse_LongTensor", "FloatTensor", "LongTensor",
           "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
           "BoolTensor"]


class _VariableMeta(type):
    """``isinstance(x, Variable)``: every tensor (torch: ``Variable`` is ``Tensor``'s alias)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, jt.Var)


class Variable(metaclass=_VariableMeta):
    """``torch.autograd.Variable(data, requires_grad=False, volatile=False)``: what torch 2.x
    returns, a detached alias of ``data`` (its graph history cut) that requires grad only when
    asked.  ``volatile`` has no effect (torch warns the same); no data gives an empty tensor."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None, name=None):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if _grad_fn is not None:
            raise TypeError("Variable(_grad_fn=...): a graph node cannot be attached in the port")
        if data is None:
            data = jt.zeros((0,), dtype="float32")
        if not isinstance(data, jt.Var):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return _device_free(bool(requires_grad), data.detach())


def _named(dtype: str, name: str):
    cls = _typed_tensor(dtype)
    cls.__name__ = cls.__qualname__ = name
    cls.__doc__ = f"``torch.{name}`` / ``torch.cuda.{name}`` ({dtype}): constructor, dtype and isinstance class."
    return cls


DoubleTensor = _named("float64", "DoubleTensor")
HalfTensor = _named("float16", "HalfTensor")
BFloat16Tensor = _named("bfloat16", "BFloat16Tensor")
ByteTensor = _named("uint8", "ByteTensor")
CharTensor = _named("int8", "CharTensor")
ShortTensor = _named("int16", "ShortTensor")
IntTensor = _named("int32", "IntTensor")
BoolTensor = _named("bool", "BoolTensor")


def _sparse(dtype: str, name: str):
    def ctor(indices, values, size=None):
        return sparse_coo_tensor(indices, values, size, dtype=dtype)
    ctor.__name__ = ctor.__qualname__ = f"sparse_{name}"
    ctor.__doc__ = (f"``torch.sparse.{name}(indices, values, size)`` (torch 0.4): "
                    f":func:`shims.sparse.sparse_coo_tensor` with {dtype} values (the dense fallback).")
    return ctor


sparse_FloatTensor = _sparse("float32", "FloatTensor")
sparse_DoubleTensor = _sparse("float64", "DoubleTensor")
sparse_LongTensor = _sparse("int32", "LongTensor")
