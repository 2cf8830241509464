"""Gradients of broadcast operands summed as accurately as torch sums them.

The gradient of an operand broadcast into a bigger result (a bias added to a feature map, a
per-channel scale, the mean a normalisation subtracts) is the sum of the result's gradient over
the broadcast dims: Jittor's ``broadcast_to`` differentiates into a ``reduce_add`` in the
gradient's own dtype, and its CPU kernel adds the terms one after another.  Over a 4x16x128x128
map that is 65,536 float32 terms per bias, 36x torch's rounding error (which sums in blocks),
and it grows with the count.  Jittor builds that reduction in C++ (``BroadcastToOp::grad``),
out of Python's reach, so the operand is widened where it is broadcast instead: on the CPU a
float32 (or narrower) operand that needs its gradient enters the broadcast as
``v.float64().broadcast(shape).cast(v.dtype)``.  The forward values are the same bits (a
float32 value is exact in float64); the backward casts the gradient up, reduces it in float64
and rounds once, as :func:`~shims.ops._common.float_sum` does for forward sums.  Fused, the
casts are part of the same kernels.

Where broadcasts happen: the binary operators of ``jt.Var`` (``+ - * / **`` and their reflected
forms, so Jittor's own Python layers and every shim that writes ``x + b`` too), ``expand``,
``expand_as`` and ``shims.broadcast_to``.  CUDA reductions (a tree) are left as they are.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, Sequence, Tuple

import jittor as jt

from ._common import _sums_wide

__all__: list = []

_OPERATORS = ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__",
              "__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rpow__")


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> Tuple[int, ...]:
    """numpy's broadcast of two shapes (trailing dims aligned; a 1 stretches)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(x if y == 1 else y for x, y in zip(a, b))


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


_ON = [True]


@contextlib.contextmanager
def sequential_float32_sums() -> Iterator[None]:
    """Inside the block, broadcasts are Jittor's own (float32 gradient sums): what
    ``bench/bench_broadcast_grad.py`` compares against."""
    _ON.append(False)
    try:
        yield
    finally:
        _ON.pop()


def widened(v: jt.Var, shape: Sequence[int]) -> jt.Var:
    """``v`` broadcast to ``shape`` so that its gradient sums in float64 (see the module
    docstring); ``v`` itself where nothing is summed or nothing needs its gradient."""
    if not _ON[-1] or not _sums_wide(v) or v.is_stop_grad() or _numel(v.shape) >= _numel(shape):
        return v
    return v.float64().broadcast(tuple(shape)).cast(v.dtype)


def _operands_widened(name: str, original):
    def op(self, other):
        if isinstance(other, jt.Var):
            ss, so = tuple(self.shape), tuple(other.shape)
            if ss != so:
                shape = broadcast_shape(ss, so)
                self, other = widened(self, shape), widened(other, shape)
        return original(self, other)

    op.__name__ = name
    op.__doc__ = (f"``Var.{name}`` whose broadcast operand's gradient sums in float64 "
                  f"(shims.ops.broadcast_grad); wraps: {original.__doc__ or ''}")
    op._broadcast_grad = True
    return op


def _expand(original):
    def expand(self, *shape):
        out = original(self, *shape)
        wide = widened(self, tuple(out.shape))
        return out if wide is self else wide

    expand.__doc__ = "``Tensor.expand`` whose gradient sums in float64 (shims.ops.broadcast_grad)"
    expand._broadcast_grad = True
    return expand


def _expand_as(self, other):
    """``Tensor.expand_as`` whose gradient sums in float64 (shims.ops.broadcast_grad)."""
    shape = tuple(other.shape)
    out = widened(self, shape)
    return out if out is not self else self.broadcast(shape)


_expand_as._broadcast_grad = True


def install() -> None:
    """Wrap the ``jt.Var`` methods that broadcast (idempotent)."""
    for name in _OPERATORS:
        current = getattr(jt.Var, name)
        if not getattr(current, "_broadcast_grad", False):
            setattr(jt.Var, name, _operands_widened(name, current))
    if not getattr(jt.Var.expand, "_broadcast_grad", False):
        jt.Var.expand = _expand(jt.Var.expand)
    jt.Var.expand_as = _expand_as


install()
