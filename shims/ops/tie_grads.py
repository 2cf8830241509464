"""torch's gradient at ties for selections: one element, or an even split among equals.

Jittor's ``max``/``min`` reductions and ``maximum``/``minimum`` send the full gradient to every
element equal to the result.  torch (``derivatives.yaml``) routes it:

* ``max``/``min`` with ``dim`` (and ``kthvalue``/``median``/``sort`` values): to the returned
  index only (:func:`take_along`);
* full ``max()``/``min()``/``median()``, ``amax``/``amin``: split evenly among the elements equal
  to the result (:func:`split_among_ties`);
* ``maximum``/``minimum`` (and ``clamp`` with tensor bounds): half to each side where the two
  are equal (:func:`maximum`, :func:`minimum`);
* ``abs``: ``sign(x)``, so nothing at 0, where Jittor's ``abs`` sends the full gradient (an L1
  loss between equal values, a total variation over a flat region): :func:`abs`, installed as
  Jittor's ``abs`` (``jt.abs``, ``Var.abs``, builtin ``abs(var)``) by :func:`install`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

import jittor as jt

__all__ = ["take_along", "split_among_ties", "maximum", "minimum", "abs"]

#: Jittor's own abs (its gradient is 1 at 0), as a method and as a function
_JT_ABS, _JT_ABS_FN = getattr(jt.Var.abs, "_jittor_abs", jt.Var.abs), getattr(jt.abs, "_jittor_abs_fn", jt.abs)


def take_along(input: jt.Var, index: jt.Var, dim: int, keepdim: bool) -> jt.Var:
    """``input``'s values at ``index`` along ``dim`` (``index`` keeps ``dim`` when ``keepdim``);
    the gradient goes to that one index (gather's backward is a scatter-add)."""
    idx = index if keepdim else index.unsqueeze(dim)
    y = input.gather(dim, idx)
    return y if keepdim else y.squeeze(dim)


class _Split(jt.Function):
    """Forward: the precomputed ``value``; backward: ``grad * (x == value) / count``."""

    def __init__(self, dims: Sequence[int], keepdim: bool):
        self.dims, self.keepdim = tuple(dims), keepdim

    def execute(self, x, value):
        keep = value
        if not self.keepdim:
            shape = [1 if i in self.dims else int(s) for i, s in enumerate(x.shape)]
            keep = value.reshape(shape)
        tie = (x == keep).cast(x.dtype)
        self.weight = tie / tie.sum(list(self.dims), keepdims=True)
        self.keep_shape = tuple(int(s) for s in keep.shape)
        return value.clone()

    def grad(self, g):
        return g.reshape(self.keep_shape) * self.weight, None


def split_among_ties(input: jt.Var, value: jt.Var, dims: Sequence[int], keepdim: bool) -> jt.Var:
    """``value`` (a max/min/median of ``input`` over ``dims``, computed without gradient) whose
    gradient is split evenly among the elements of ``input`` equal to it, as torch's."""
    dims = sorted({d % input.ndim for d in dims}) if input.ndim else []
    return _Split(dims, keepdim)(input, value.stop_grad())


def _broadcast(a, b):
    a = a if isinstance(a, jt.Var) else jt.array(np.asarray(a, dtype=np.float32))
    b = b if isinstance(b, jt.Var) else jt.array(np.asarray(b, dtype=np.float32)).cast(a.dtype)
    shape = list(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    return (a if list(a.shape) == shape else a.broadcast(shape)), (b if list(b.shape) == shape else b.broadcast(shape))


class _Pair(jt.Function):
    def __init__(self, take_max: bool):
        self.take_max = take_max

    def execute(self, a, b):
        self.a, self.b = a, b
        return jt.maximum(a, b) if self.take_max else jt.minimum(a, b)

    def grad(self, g):
        a, b = self.a, self.b
        base = jt.ternary(a == b, g * 0.5, g)
        zero = jt.zeros_like(g)
        a_loses, b_loses = (a < b, a > b) if self.take_max else (a > b, a < b)
        return jt.ternary(a_loses, zero, base), jt.ternary(b_loses, zero, base)


def maximum(input, other) -> jt.Var:
    """``torch.maximum``: torch's gradient, half to each side where the two are equal."""
    return _Pair(True)(*_broadcast(input, other))


def minimum(input, other) -> jt.Var:
    """``torch.minimum``: torch's gradient, half to each side where the two are equal."""
    return _Pair(False)(*_broadcast(input, other))


def abs(input):  # noqa: A001 - torch's name
    """``torch.abs``: ``|x|`` with torch's gradient ``sign(x)`` (0 at 0, where Jittor's sends 1).
    ``x * sign(x)`` is exact; adding ``+0.0`` makes ``|-0.0|`` the ``+0.0`` torch gives.  Other
    dtypes (integers; float16, whose comparisons Jittor cannot compile on the CPU) keep Jittor's."""
    if not isinstance(input, jt.Var) or str(input.dtype) not in ("float32", "float64"):
        return _JT_ABS(input) if isinstance(input, jt.Var) else _JT_ABS_FN(input)
    sign = (input > 0).cast(input.dtype) - (input < 0).cast(input.dtype)
    return input * sign + jt.zeros_like(input)


def install() -> None:
    """Make :func:`abs` Jittor's ``abs`` (idempotent)."""
    abs._jittor_abs, abs._jittor_abs_fn = _JT_ABS, _JT_ABS_FN
    jt.abs = jt.Var.abs = jt.Var.__abs__ = abs


install()
