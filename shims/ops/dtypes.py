"""Dtypes as torch names and promotes them: ``Tensor.type()``, the ``byte``/``char``/``short``
casts, ``promote_types``/``result_type``/``can_cast``, and what a tensor's dtype tells
(``is_floating_point``, ``element_size``, ``itemsize``).

Jittor has no complex dtype: ``is_complex`` is always False, ``real``/``conj``/``resolve_conj``
of a real tensor are the tensor itself (as torch's), and complex constructors are marked
unsupported by the table.
"""
from __future__ import annotations

import math

import jittor as jt
import numpy as np

from ._common import _FLOAT_DTYPES, exact_scalar, scalar_dtype

__all__ = [
    "tensor_type", "byte", "char", "short", "is_complex", "is_floating_point", "is_signed", "element_size", "real",
    "conj", "angle", "is_conj", "is_neg", "resolve_conj", "resolve_neg", "promote_types", "result_type", "can_cast",
    "isreal", "tensor_to", "pin_memory",
]


_DTYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor", "int32": "IntTensor",
    "int64": "LongTensor", "bool": "BoolTensor",
}
_NAME_DTYPES = {v: k for k, v in _DTYPE_NAMES.items()}


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


def pin_memory(input, device=None):
    """``Tensor.pin_memory()``: the receiver itself. Pinning page-locks host memory to speed a
    copy to the GPU; Jittor places every Var by one global flag and copies itself, and pinning
    never changes a value."""
    return input


def byte(input, memory_format=None):
    """``Tensor.byte()``: uint8."""
    return input.cast("uint8")


def char(input, memory_format=None):
    """``Tensor.char()``: int8."""
    return input.cast("int8")


def short(input, memory_format=None):
    """``Tensor.short()``: int16."""
    return input.cast("int16")


def is_complex(input) -> bool:
    """``torch.is_complex``: Jittor has no complex dtype (always False)."""
    return False


def is_floating_point(input) -> bool:
    """``torch.is_floating_point``."""
    return str(input.dtype) in _FLOAT_DTYPES


def is_signed(input) -> bool:
    """``Tensor.is_signed``."""
    return str(input.dtype) not in ("uint8", "uint16", "uint32", "uint64", "bool")


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


def _real(self):
    return self


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


def isreal(input):
    """``torch.isreal``: every element of a real tensor is real (all True)."""
    return jt.ones(tuple(input.shape), dtype="bool")


def _itemsize(self):
    return element_size(self)


if not hasattr(jt.Var, "real"):
    jt.Var.real = property(_real)
if not hasattr(jt.Var, "itemsize"):
    jt.Var.itemsize = property(_itemsize)


# Jittor 1.3.11 computes ``scalar OP var`` for a one-element Var (shape ``(1,)``: every full
# reduction, so every loss) in float32 whatever the Var's dtype: ``1.0 * loss64`` is float32
# (rounded), ``1.0 * loss16`` float32; ``loss64 * 1.0`` and any other shape keep the dtype.
# torch keeps the tensor's dtype (a Python scalar does not promote a float tensor), so a
# float64 loss written ``loss_adv + lambda_sty * loss_sty`` (StarGAN v2's compute_g_loss) stays
# float64.  And with a float64 Var of any shape, Jittor's Python-float operand is float32
# (``x64 * 0.1`` multiplies by 0.100000001): float64 code carries a 1e-8 relative bias on every
# constant that float32 cannot hold (LeakyReLU's 0.2, an eps, ``1 / sqrt(2)``), and the port's
# float64 gradients sat 1e-7 relative from torch's, enough to flip Adam's first step
# (``lr * g / (|g| + eps)``) on elements with gradients that small.  The operators below take
# the scalar as a one-element Var of the result's dtype, made exactly (``jt.full`` rounds a
# float64 0.1 through float32 too).
_FORWARD = ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__mod__")
_REFLECTED = {f"__r{name[2:]}": name for name in _FORWARD}


def _inexact_in_float32(self, other) -> bool:
    """A Python float that Jittor would round (not a float32 value) beside a float64 Var."""
    return type(other) is float and str(self.dtype) == "float64" and float(np.float32(other)) != other \
        and math.isfinite(other)


def _scalar_first(name: str, original):
    forward = _REFLECTED[name]

    def reflected(self, other):
        if type(other) not in (int, float) or str(self.dtype) == "bool" or \
                (tuple(self.shape) != (1,) and not _inexact_in_float32(self, other)):
            return original(self, other)
        return getattr(exact_scalar(other, scalar_dtype(self, other)), forward)(self)

    reflected.__name__ = name
    reflected.__doc__ = f"torch's ``scalar {forward[2:-2]} tensor`` (dtype and float64 value; shims.ops.dtypes)"
    return reflected


def _exact_operand(name: str, original):
    def op(self, other):
        if _inexact_in_float32(self, other):
            other = exact_scalar(other, "float64")
        return original(self, other)

    op.__name__ = name
    op.__doc__ = f"``tensor {name[2:-2]} scalar`` with a float64 scalar kept exact (shims.ops.dtypes)"
    return op


for _name, _make in [*((n, _scalar_first) for n in _REFLECTED), *((n, _exact_operand) for n in _FORWARD)]:
    if not getattr(getattr(jt.Var, _name), "_shims", False):
        _patched = _make(_name, getattr(jt.Var, _name))
        _patched._shims = True
        setattr(jt.Var, _name, _patched)


def _as_dtype(value):
    """The Jittor dtype named by ``value`` (``jt.float32``, ``x.dtype``, ``"float64"``), or None
    when it names none (a device: ``"cuda:0"``, ``Device``, an index, None)."""
    name = getattr(value, "__name__", None) if callable(value) else value
    if isinstance(name, str) or type(name).__name__ == "NanoString":
        name = str(name)
        return name if name in _DTYPE_NAMES else None
    return None


def tensor_to(x, *args, **kwargs):
    """torch's ``x.to(...)`` where the converter cannot tell a move from a cast (``x.to(arg)``,
    ``x.to(*args, **kwargs)``): devices, ``non_blocking``, ``memory_format`` change nothing
    (Jittor places every Var by one global flag); a dtype, or another tensor's dtype, casts;
    ``copy=True`` copies. A Jittor layer casts its floating parameters (torch's ``Module.to``);
    anything else (a project's own object) gets its own ``.to``."""
    dtype = _as_dtype(kwargs.get("dtype"))
    for a in args:
        if isinstance(a, jt.Var):
            dtype = str(a.dtype)
        elif _as_dtype(a) is not None:
            dtype = _as_dtype(a)
    if isinstance(x, jt.Module) and not hasattr(x, "to"):  # Jittor's own layers: torch's Module.to
        from ..nn.module import _cast_floats  # lazy: shims.nn imports the ops
        return x if dtype is None else _cast_floats(x, dtype)
    if not isinstance(x, jt.Var):
        return x.to(*args, **kwargs)
    out = x if dtype is None or str(x.dtype) == dtype else x.cast(dtype)
    return out.clone() if kwargs.get("copy") and out is x else out
