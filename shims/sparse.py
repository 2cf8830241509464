"""Sparse tensors on a DENSE fallback: Jittor 1.3.11 has no sparse storage.

``torch.sparse_coo_tensor``, ``x.to_sparse()``, ``torch.sparse.mm``/``torch.spmm``,
``torch.sparse.sum``, ``s.to_dense()``, ``s.coalesce()`` and ``s.is_sparse`` give torch's values
and gradients, but every "sparse" tensor is a dense Var holding all its zeros: memory and time
are those of the dense tensor (fine for the adjacency matrices of small graphs, not for a sparse
matrix that only fits in memory as one).  A Var made by :func:`sparse_coo_tensor` or
:func:`to_sparse` reads ``is_sparse`` as True (what code branches on); what it computes is dense.
"""
from __future__ import annotations

import jittor as jt

from .ops import _receiver_fallback

_FLAG = "_jtport_sparse"


def _as_var(x, dtype=None):
    v = x if isinstance(x, jt.Var) else jt.array(x)
    return v if dtype is None else v.cast(dtype)


def _mark(v: jt.Var) -> jt.Var:
    setattr(v, _FLAG, True)
    return v


def sparse_coo_tensor(indices, values, size=None, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """``torch.sparse_coo_tensor(indices, values, size)`` as the dense tensor it stands for:
    ``values[k]`` added at ``indices[:, k]`` (duplicates summed, as ``to_dense`` does); ``size``
    inferred as torch does (one past the largest index of each sparse dim) when not given.
    Differentiable with respect to ``values``."""
    idx = _as_var(indices, "int32")
    vals = _as_var(values, dtype)
    if idx.ndim != 2:
        raise ValueError(f"sparse_coo_tensor: indices must be 2-D (sparse dims x nnz), got shape {idx.shape}")
    nsparse, nnz = idx.shape
    dense_dims = list(vals.shape[1:])
    if size is None:
        size = [int(m) + 1 for m in idx.max(1).numpy()] + dense_dims if nnz else [0] * nsparse + dense_dims
    size = [int(s) for s in size]
    if nnz == 0:
        out = jt.zeros(size, dtype=vals.dtype)
    else:
        rows = [idx[d] for d in range(nsparse)]
        exprs = [f"@e{d}(i0)" for d in range(nsparse)] + [f"i{k + 1}" for k in range(len(dense_dims))]
        out = vals.reindex_reduce("add", size, exprs, extras=rows)
    if requires_grad:
        out.requires_grad_()
    return _mark(out)


@_receiver_fallback
def to_sparse(input, *args, **kwargs):
    """``x.to_sparse()``: the same values (a dense Var, read as sparse by ``is_sparse``)."""
    return _mark(input * 1)


@_receiver_fallback
def to_dense(input, *args, **kwargs):
    """``s.to_dense()``: the dense tensor (an unmarked copy)."""
    return input * 1


@_receiver_fallback
def coalesce(input):
    """``s.coalesce()``: the tensor itself (dense: duplicates were summed when it was built)."""
    return input


def mm(mat1, mat2, reduce: str = "sum"):
    """``torch.sparse.mm``/``torch.spmm``: the dense matrix product (``reduce='sum'`` only)."""
    if reduce != "sum":
        raise NotImplementedError(f"shims.sparse.mm: reduce={reduce!r} (only 'sum' on the dense fallback)")
    return jt.matmul(mat1, mat2)


def sum(input, dim=None, dtype=None):
    """``torch.sparse.sum(s, dim)``: the dense sum over ``dim`` (all dims when None)."""
    x = input if dtype is None else input.cast(dtype)
    return x.sum() if dim is None else x.sum(dim)


def _install() -> None:
    jt.Var.is_sparse = property(lambda self: bool(getattr(self, _FLAG, False)),
                                doc="torch's ``Tensor.is_sparse``: True for Vars made by shims.sparse")


_install()
