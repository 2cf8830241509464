"""numpy's array protocol on a Jittor ``Var``: ``np.asarray(var, dtype)``, ``ndarray[i] = var``.

Jittor's ``Var.__array__`` is ``Var.numpy``, which takes no argument, but numpy passes the
target ``dtype`` (and, from numpy 2, ``copy``) whenever it converts an object into an array of
a given type. Every such conversion of a Var then fails with "Wrong inputs arguments ...
help(jt.numpy)": a Var written into a numpy array, as converted code does through Jittor's
``x.data`` (a numpy view of ``x``: torchdiffeq's ``scratch.data[index] = value``),
``np.asarray(v, np.float32)``, ``np.array(v, dtype=...)``. Torch tensors accept both arguments.
"""
from __future__ import annotations

import jittor as jt

_NUMPY = jt.Var.numpy


def var_array(self, dtype=None, copy=None):
    """``Var.__array__`` as numpy calls it: the values as an ndarray, of ``dtype`` when given."""
    out = _NUMPY(self)
    return out if dtype is None else out.astype(dtype, copy=False)


jt.Var.__array__ = var_array
