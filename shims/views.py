"""torch's views on Jittor: an in-place write into a view changes the tensor it views.

In torch ``x[0]``, ``x[:, :2]``, ``x.detach()``, ``x.data``, ``x.view(...)``/``reshape`` (of a
contiguous tensor), ``t``/``transpose``/``permute``, ``narrow``, ``select``, ``unbind``/``chunk``/
``split``, ``squeeze``/``unsqueeze``, ``flatten``, ``diagonal`` share ``x``'s storage, so
``x[:, :2].mul_(3)`` or ``v = x[0]; v.add_(1)`` changes ``x``.  A Jittor Var never shares
storage: the same code leaves ``x`` unchanged and runs on (measured: docs/views.md).

Here every view-returning op records on its result, lazily, how it was made: the attribute
``_jtport_view = (base, kind, arg)`` (one ``setattr``, no copy, no graph node; most views are never
written to).  Every in-place write (Jittor's ``assign``, which all of Jittor's and shims' ``op_``
methods and the augmented assignments end in, and ``__setitem__``) then looks for that record and,
when present, writes the view's new value back into its base by the inverse of the view op
(``base[idx] = v``, ``base.assign(v.reshape(base.shape))``, the inverse permutation, ...); the
base's own write goes on to its base, so chains (``x.view(-1)[:3].zero_()``) reach the root.

What stays different from torch (docs/views.md): a write into the base, or into another view of
it, does not reach a view made before (Jittor's view keeps the values it had); ``detach()``/
``.data`` of a tensor inside an autograd graph is not recorded (keeping the base would keep its
whole graph alive: torch's detached view keeps only the storage); fancy indexes are copies.
"""
from __future__ import annotations

import jittor as jt

from .grad_mode import defer_sync

ATTR = "_jtport_view"
_BASIC = (int, slice, type(None), type(Ellipsis))


def record(view, base, kind: str, arg=None):
    """Note on ``view`` that it is a torch view of ``base`` made by ``kind`` (``arg``: its index,
    permutation, ...); returns ``view``."""
    if isinstance(view, jt.Var) and view is not base:
        setattr(view, ATTR, (base, kind, arg))
    return view


def base_of(view):
    """The Var ``view`` is a recorded view of, or None."""
    rec = getattr(view, ATTR, None)
    return rec[0] if rec is not None else None


def detach_view(x):
    """``x.detach()``/``x.data`` that a later in-place write goes through to ``x`` (the converter
    writes this where it sees such a write).  ``Var.detach`` records only a base outside any
    autograd graph: keeping a graph node's Var alive would keep its whole graph alive."""
    if isinstance(x, jt.Var):
        return record(x.detach(), x, "detach")
    return x.detach() if hasattr(x, "detach") else x.data


def _is_basic(idx) -> bool:
    """A torch basic index (ints, slices, None, ``...``): its result is a view, not a copy."""
    entries = idx if type(idx) is tuple else (idx,)
    return all(isinstance(s, _BASIC) and not isinstance(s, bool) for s in entries)


def _assign_keeping_grad(base, value) -> None:
    """``base`` takes ``value`` (cast to its dtype); ``shims.autograd``'s ``assign`` keeps a base
    that required grad requiring it, as torch's in-place writes do."""
    base.assign(value if value.dtype == base.dtype else value.cast(base.dtype))


def _write_index(base, view, idx) -> None:
    if any(s is None for s in (idx if type(idx) is tuple else (idx,))):
        idx = tuple(s for s in idx if s is not None) if type(idx) is tuple else ()
        view = view.reshape(tuple(base[idx].shape) if idx else tuple(base.shape))
    if type(idx) is tuple and not idx:
        _assign_keeping_grad(base, view)
        return
    trainable = not base.is_stop_grad()
    base[idx] = view
    if trainable and base.is_stop_grad():
        defer_sync(base, True)


def _write_whole(base, view, _arg) -> None:
    _assign_keeping_grad(base, view.reshape(tuple(base.shape)))


def _write_detached(base, view, _arg) -> None:
    _assign_keeping_grad(base, view.detach())


def _write_permuted(base, view, perm) -> None:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    _assign_keeping_grad(base, view.permute(inverse))


def _write_expanded(base, view, _arg) -> None:
    raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                       "single memory location. Please clone() the tensor before performing the operation.")


_WRITERS = {"index": _write_index, "fancy": _write_index, "reshape": _write_whole, "detach": _write_detached,
            "permute": _write_permuted, "expand": _write_expanded}


def written(var) -> None:
    """``var`` was just written in place: if it is a recorded view, write it into its base."""
    rec = getattr(var, ATTR, None)
    if rec is None:
        return
    base, kind, arg = rec
    if kind == "index" and not _is_basic(arg):
        return  # a fancy index or a mask: a copy in torch too
    _WRITERS[kind](base, var, arg)


def _split(method):
    """Wrap ``Var.split`` (Jittor's slices with its C++ ``getitem``): each piece is recorded as
    the slice of the receiver it is."""
    def wrapped(self, split_size, dim=0):
        pieces = method(self, split_size, dim)
        d, start = dim % self.ndim, 0
        for piece in pieces:
            n = int(piece.shape[d])
            record(piece, self, "index", (slice(None),) * d + (slice(start, start + n),))
            start += n
        return pieces
    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = method.__name__, method.__doc__, method
    return wrapped


def _contiguous(var) -> bool:
    """Whether torch's ``reshape`` of ``var`` would be a view: not of a permuted, expanded or
    column-sliced view (torch copies those)."""
    rec = getattr(var, ATTR, None)
    if rec is None or rec[1] in ("reshape", "detach"):
        return rec is None or _contiguous(rec[0])
    if rec[1] != "index":
        return False
    inner = False  # past the first dim that is not indexed by an int
    for s in (rec[2] if type(rec[2]) is tuple else (rec[2],)):
        if s is None:
            continue
        full = s is Ellipsis or (isinstance(s, slice) and s == slice(None))
        if inner and not full:
            return False
        if isinstance(s, slice) and s.step not in (None, 1):
            return False
        inner = inner or full or isinstance(s, slice)
    return _contiguous(rec[0])


def _recording(method, kind: str):
    """Wrap a Var method so its result is recorded as a ``kind`` view of the receiver."""
    def wrapped(self, *args, **kwargs):
        return record(method(self, *args, **kwargs), self, kind)
    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = method.__name__, method.__doc__, method
    return wrapped


def _writing(method):
    """Wrap a Var method that writes its receiver so a recorded view writes through."""
    def wrapped(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        written(self)
        return out
    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = method.__name__, method.__doc__, method
    return wrapped


def install() -> None:
    """Wrap Jittor's view ops and in-place writes on ``jt.Var`` once (idempotent)."""
    if getattr(jt.Var.assign, "_views", False):
        return
    get, transpose, detach = jt.Var.__getitem__, jt.Var.transpose, jt.Var.detach
    reshape, view = jt.Var.reshape, jt.Var.view

    def getitem(self, idx):
        return record(get(self, idx), self, "index", idx)

    def permute(self, *dims):
        out = transpose(self, *dims)
        if len(dims) == 1 and not isinstance(dims[0], int):
            perm = [int(d) for d in dims[0]]
        elif len(dims) == 2:
            perm = list(range(self.ndim))
            perm[dims[0]], perm[dims[1]] = perm[dims[1]], perm[dims[0]]
        else:
            perm = [int(d) for d in dims]
        return record(out, self, "permute", [p % self.ndim for p in perm])

    def detached(self):
        out = detach(self)
        return record(out, self, "detach") if self.is_stop_grad() or self.is_leaf else out

    def reshaping(method):
        def wrapped(self, *shape, **kwargs):
            out = method(self, *shape, **kwargs)
            return record(out, self, "reshape") if _contiguous(self) else out
        wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = method.__name__, method.__doc__, method
        return wrapped

    def expand(self, *shape, **kwargs):
        out = expand_(self, *shape, **kwargs)
        grown = tuple(out.shape) != tuple(self.shape)
        return record(out, self, "expand" if grown else "reshape")

    def chunk(self, chunks: int, dim: int = 0):
        """torch's ``chunk``: pieces of ``ceil(n / chunks)`` along ``dim``, each a slice (a view
        that writes back), also where ``dim`` is shorter than ``chunks`` (Jittor's then picks with
        a list index: copies) or ``chunks`` is 1 (Jittor's fails)."""
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        d = dim % self.ndim
        n = int(self.shape[d])
        head = (slice(None),) * d
        if n == 0:
            return tuple(self[head + (slice(0, 0),)] for _ in range(chunks))
        size = -(-n // chunks)
        return tuple(self[head + (slice(i, min(i + size, n)),)] for i in range(0, n, size))

    expand_ = jt.Var.expand
    for wrapper, original in ((getitem, get), (permute, transpose), (detached, detach), (expand, expand_)):
        wrapper.__wrapped__, wrapper.__doc__ = original, original.__doc__
    jt.Var.__getitem__ = getitem
    jt.Var.transpose = jt.Var.permute = permute
    jt.Var.detach = detached
    jt.Var.reshape, jt.Var.view = reshaping(reshape), reshaping(view)
    jt.Var.unsqueeze = reshaping(jt.Var.unsqueeze)
    jt.Var.expand = expand
    jt.Var.split = _split(jt.Var.split)
    jt.Var.chunk = jt.chunk = chunk
    jt.Var.assign = _writing(jt.Var.assign)
    jt.Var.__setitem__ = _writing(jt.Var.__setitem__)
    jt.Var.assign._views = True


install()
