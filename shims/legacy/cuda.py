"""``torch.cuda.FloatTensor`` & co: the CPU classes' constructors and casts (Jittor places every
Var by one global flag), with ``isinstance`` true only when Jittor runs on CUDA (a CPU tensor is
no ``cuda.FloatTensor`` in torch)."""
from __future__ import annotations

import jittor as jt

from .tensors import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                      IntTensor, LongTensor, ShortTensor)

__all__ = ["FloatTensor", "LongTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "BoolTensor"]


class _CudaTypedMeta(type(FloatTensor)):
    """``isinstance(x, torch.cuda.FloatTensor)``: the dtype matches and Jittor runs on CUDA."""

    def __instancecheck__(cls, obj) -> bool:
        return bool(jt.flags.use_cuda) and super().__instancecheck__(obj)


def _cuda(cpu):
    return _CudaTypedMeta(cpu.__name__, (cpu,), {"__doc__": f"``torch.cuda.{cpu.__name__}``.",
                                                 "__qualname__": cpu.__name__, "__module__": __name__})


FloatTensor = _cuda(FloatTensor)
LongTensor = _cuda(LongTensor)
DoubleTensor = _cuda(DoubleTensor)
HalfTensor = _cuda(HalfTensor)
BFloat16Tensor = _cuda(BFloat16Tensor)
ByteTensor = _cuda(ByteTensor)
CharTensor = _cuda(CharTensor)
ShortTensor = _cuda(ShortTensor)
IntTensor = _cuda(IntTensor)
BoolTensor = _cuda(BoolTensor)
