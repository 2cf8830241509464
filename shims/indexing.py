"""torch's indexing and copies on Jittor's ``Var``: ``range`` indices, ``clone`` that never aliases,
and a setitem Jittor 1.3.11 gets wrong.

Importing :mod:`shims` wraps ``jt.Var.__getitem__``/``__setitem__`` (Jittor's own, from
``jittor.contrib``) so that:

* a ``range`` used as an index (``x[range(3)]``, ``x[:, range(2, 5)]``, ``y[range(2)] = v``) is
  torch's advanced index, the list of its values; Jittor rejects ``range`` outright.
* a uint8 tensor used as an index (``x[mask.type(torch.ByteTensor)]``, torch 0.4-1.1's masks) is
  a boolean mask, as torch 2 still reads it; Jittor gathers by its 0/1 values.
* an element taken with integers alone (``perm[k]`` of a 1-D tensor, ``x[i, j]`` of a 2-D one),
  a 0-d tensor in torch, indexes as the integer it holds, as torch's 0-d index does:
  ``pose_all[perm[k], :3, 3]`` is (3,), where Jittor (no 0-d Vars: the element is (1,)) kept a
  dimension, (1, 3), and NeuS's rays then had one dimension too many (measured).  Jittor cannot
  tell a 0-d tensor from a (1,) one, so the element is marked when it is taken (``TORCH_0D``); an
  unmarked one-element index (``x[torch.tensor([2])]``) keeps its dimension, as in torch.
* ``y[i] = v`` with an index shorter than ``y``'s rank writes the whole region.  Jittor 1.3.11's
  in-place setitem optimisation (``setitem_gopt.cc``) sizes the region from the index entries
  given, ignoring the trailing dimensions, so on a Var that was already computed and has no
  backward graph (an int tensor, ``stop_grad``, under ``no_grad``) ``y[0] = 100`` on a (3, 4)
  Var wrote ``y[0, 0]`` only, and ``y[0:2] = v`` with ``v`` of shape (2, 1) two elements: silently
  wrong values (measured).  An index of ints and slices is padded with full slices to the rank,
  which makes Jittor size the region right.

* ``x.clone()``, ``jt.clone(x)`` (and so ``torch.tensor(x)``, ``jt.array(x)``) are real copies.
  Jittor's clone op shares ``x``'s memory (``clone_op.cc``: ``y->share_with(x)``); an in-place
  setitem on the computed clone whose value is computed straight into its buffer then wrote
  into ``x``: ``with no_grad: y = x.clone(); ...; y[1:] = x[1:] * 2`` changed ``x`` (measured:
  the silent training error of issue 17).  Jittor's ``copy`` op (a memcpy, identity gradient)
  is used instead.

What stays different from torch: a slice or a ``detach()`` of ``x`` is not a view, so
``y = x[0:2]; y[0] = 5`` or ``y = x.detach(); y[0] = 5`` does not reliably reach ``x`` as it does
in torch (the converter marks such writes, JT107); Jittor writes through a chain of single-int
indices, ``y = x[0]; y[1] = 5``, as torch.
"""
from __future__ import annotations

import numbers

import jittor as jt
import numpy as np

_BASIC = (int, slice)
#: the attribute marking a Var that torch would hold as a 0-d tensor (an element taken by integers)
TORCH_0D = "_jtport_torch_0d"
_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")


def _is_int(s) -> bool:
    """An integer index entry (a Python or numpy integer; not a bool, which torch reads as a mask)."""
    return isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_))


def _entry(s):
    """One index entry in Jittor's terms: a ``range`` is the list of its values; a uint8 tensor is
    a boolean mask (torch's deprecated ``ByteTensor`` mask, which it still honours with a warning;
    Jittor would gather by its 0/1 values instead: silently other elements, another shape)."""
    if type(s) is range:
        return list(s)
    if isinstance(s, jt.Var):
        if s.dtype == "uint8":
            return s != 0
        if getattr(s, TORCH_0D, False) and s.dtype in _INT_DTYPES:
            return int(s.item())
    return s


def _element(x, idx) -> bool:
    """Whether ``x[idx]`` is one element, a 0-d tensor in torch: an integer per dimension."""
    entries = idx if type(idx) is tuple else (idx,)
    return len(entries) == x.ndim and all(_is_int(s) for s in entries)


def _index(idx):
    """torch's meaning of ``idx`` in Jittor's terms (see :func:`_entry`)."""
    if type(idx) is tuple:
        return tuple(_entry(s) for s in idx) if any(type(s) is range or isinstance(s, jt.Var) for s in idx) else idx
    return _entry(idx)


def _padded(x, idx):
    """``idx`` of ints and slices shorter than ``x``'s rank, padded with full slices."""
    entries = idx if type(idx) is tuple else (idx,)
    if len(entries) >= x.ndim or not all(isinstance(s, _BASIC) and not isinstance(s, bool) for s in entries):
        return idx
    return entries + (slice(None),) * (x.ndim - len(entries))


def clone(x, *args, **kwargs):
    """torch's ``clone``: a copy with its own memory (``memory_format`` has no meaning in Jittor)."""
    return x.copy()


def install() -> None:
    """Wrap Jittor's ``Var.__getitem__``/``__setitem__`` and replace ``clone`` once (idempotent)."""
    get, set_ = jt.Var.__getitem__, jt.Var.__setitem__
    if getattr(get, "_shims", False):
        return
    jt.Var.clone = jt.clone = clone

    def getitem(self, idx):
        idx = _index(idx)
        out = get(self, idx)
        if _element(self, idx):
            setattr(out, TORCH_0D, True)
        return out

    def setitem(self, idx, value):
        return set_(self, _padded(self, _index(idx)), value)

    getitem._shims = setitem._shims = True
    getitem.__doc__, setitem.__doc__ = "torch's ``Tensor.__getitem__``", "torch's ``Tensor.__setitem__``"
    jt.Var.__getitem__ = getitem
    jt.Var.__setitem__ = setitem


install()
