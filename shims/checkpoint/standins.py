"""What allow-listed pickle globals resolve to: fresh, inert stand-ins made for one load.

A pickle can mutate what its globals resolve to (BUILD sets attributes, including
``__defaults__`` of a function).  So no global ever resolves to a shared object: each load makes
its own stand-ins (:func:`make_globals`), and every stand-in refuses BUILD.  Calling a stand-in
checks its arguments and builds plain data (tuples, containers, :class:`PendingTensor`).
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from .errors import CheckpointError

# Storage class name -> numpy dtype as stored on disk (little-endian).  bfloat16 is read as raw
# uint16 and widened to float32 (numpy has no bfloat16; the widening is exact).
STORAGE_DTYPES = {
    "FloatStorage": np.dtype("<f4"), "DoubleStorage": np.dtype("<f8"),
    "HalfStorage": np.dtype("<f2"), "BFloat16Storage": np.dtype("<u2"),
    "LongStorage": np.dtype("<i8"), "IntStorage": np.dtype("<i4"),
    "ShortStorage": np.dtype("<i2"), "CharStorage": np.dtype("i1"),
    "ByteStorage": np.dtype("u1"), "BoolStorage": np.dtype("?"),
}


class Inert:
    """Base of every stand-in: no instance dict, and BUILD (``__setstate__``) is refused."""

    __slots__ = ()

    def __setstate__(self, state):
        raise CheckpointError(f"the pickle tries to set attributes on {self!r} (BUILD): refused")

    def __reduce__(self):  # never pickled back out by accident
        raise TypeError(f"{self!r} is a checkpoint-reading stand-in")


class StorageType(Inert):
    """Stand-in for a torch storage class (``torch.FloatStorage``) named in a pickle."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "dtype", STORAGE_DTYPES[name])

    def __setattr__(self, key, value):
        raise AttributeError("storage types are read-only")

    def __repr__(self):
        return f"torch.{self.name}"


class TorchClass(Inert):
    """Stand-in for ``torch.Tensor``/``torch.nn.Parameter`` named by ``_rebuild_from_type_v2``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        object.__setattr__(self, "name", name)

    def __setattr__(self, key, value):
        raise AttributeError("read-only")

    def __repr__(self):
        return self.name


class Function(Inert):
    """Stand-in for an allow-listed callable global: checks its arguments, then builds data.

    ``newobj`` says what the NEWOBJ opcode may do with it (``cls.__new__(cls, *args)``): only
    ``complex`` is written that way by torch's pickler; for the others it is refused.
    """

    __slots__ = ("qualname", "fn", "newobj_ok")

    def __init__(self, qualname: str, fn: Callable, newobj_ok: bool = False):
        object.__setattr__(self, "qualname", qualname)
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "newobj_ok", newobj_ok)

    def __setattr__(self, key, value):
        raise AttributeError(f"{self.qualname} is read-only")

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def newobj(self, args: Tuple, kwargs: Optional[Dict] = None):
        """The NEWOBJ/NEWOBJ_EX opcodes: allowed only where torch's pickler writes them."""
        if not self.newobj_ok:
            raise CheckpointError(f"NEWOBJ on {self.qualname} refused")
        return self.fn(*args, **(kwargs or {}))

    def __repr__(self):
        return self.qualname


class PendingTensor(Inert):
    """A tensor whose storage bytes may not be read yet; materialised after unpickling."""

    __slots__ = ("storage", "offset", "size", "stride")

    def __init__(self, storage, offset: int, size: Tuple[int, ...], stride: Tuple[int, ...]):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

    def __repr__(self):
        return f"tensor(size={self.size})"

    def span(self) -> int:
        """Elements of the storage the view reaches (0 for an empty tensor)."""
        if 0 in self.size:
            return 0
        return self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride)) + 1


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_tuple(v, what: str) -> Tuple[int, ...]:
    if not isinstance(v, (tuple, list)) or not all(_is_int(x) and x >= 0 for x in v):
        raise CheckpointError(f"_rebuild_tensor_v2: {what} must be a tuple of non-negative integers")
    if len(v) > 64:
        raise CheckpointError(f"_rebuild_tensor_v2: {len(v)} dimensions")
    return tuple(v)


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                      backward_hooks=None, metadata=None):
    """torch._utils._rebuild_tensor_v2: a :class:`PendingTensor` over a storage stand-in."""
    from .storages import StorageRef
    if not isinstance(storage, StorageRef):
        raise CheckpointError("_rebuild_tensor_v2 called without a storage")
    if not _is_int(storage_offset) or storage_offset < 0:
        raise CheckpointError("_rebuild_tensor_v2: storage offset must be a non-negative integer")
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if len(size) != len(stride):
        raise CheckpointError(f"_rebuild_tensor_v2: size {size} and stride {stride} differ in length")
    tensor = PendingTensor(storage, storage_offset, size, stride)
    storage.views.append(tensor)
    return tensor


def _rebuild_parameter(data, requires_grad=True, backward_hooks=None, state=None):
    if not isinstance(data, PendingTensor):
        raise CheckpointError("_rebuild_parameter expects a tensor")
    return data


def _codecs_encode(text, encoding="utf-8"):
    # Protocol-2 pickles spell ``bytes`` as _codecs.encode(str, 'latin1').
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise CheckpointError("_codecs.encode with unexpected arguments")
    return text.encode(encoding)


def _torch_size(items=()):
    return _int_tuple(items, "torch.Size")


def _flat_items(items, what: str):
    """Set elements must hash in bounded time: scalars and flat tuples of scalars only (a
    tuple-of-tuples DAG hashes in time exponential in its depth)."""
    items = list(items) if isinstance(items, (list, tuple, set, frozenset)) else None
    if items is None:
        raise CheckpointError(f"{what} expects a list")
    for v in items:
        if not is_flat_key(v):
            raise CheckpointError(f"{what} element of type {type(v).__name__} refused")
    return items


SCALARS = (str, bytes, int, float, bool, complex, type(None))


def is_flat_key(v) -> bool:
    """A dict key or set element: a scalar, or a tuple of scalars."""
    if isinstance(v, tuple):
        return len(v) <= 64 and all(isinstance(x, SCALARS) for x in v)
    return isinstance(v, SCALARS)


def _complex(real=0.0, imag=0.0):
    if not all(isinstance(v, (int, float)) for v in (real, imag)):
        raise CheckpointError("complex() expects two real numbers")
    return complex(real, imag)


def _slice(*args):
    if len(args) > 3 or not all(v is None or isinstance(v, int) for v in args):
        raise CheckpointError("slice() expects up to three integers")
    return slice(*args)


def _ordered_dict(items=()):
    if items:
        raise CheckpointError("OrderedDict() with arguments refused (torch fills it with SETITEMS)")
    return collections.OrderedDict()


def _rebuild_from_type_v2(rebuild: Function):
    def call(func, new_type, args, state):
        if func is not rebuild or not isinstance(new_type, TorchClass):
            raise CheckpointError("_rebuild_from_type_v2 with an unexpected rebuild function")
        if not isinstance(args, tuple):
            raise CheckpointError("_rebuild_from_type_v2 expects an argument tuple")
        return func(*args)
    return call


def make_globals() -> Dict[Tuple[str, str], Any]:
    """The allow-list: (module, name) -> a stand-in made fresh for one load."""
    from .numpy_globals import numpy_globals

    rebuild = Function("torch._utils._rebuild_tensor_v2", rebuild_tensor_v2)
    out: Dict[Tuple[str, str], Any] = {
        ("collections", "OrderedDict"): Function("collections.OrderedDict", _ordered_dict),
        ("torch._utils", "_rebuild_tensor_v2"): rebuild,
        ("torch._utils", "_rebuild_parameter"): Function("torch._utils._rebuild_parameter", _rebuild_parameter),
        ("torch._utils", "_rebuild_parameter_with_state"):
            Function("torch._utils._rebuild_parameter_with_state", _rebuild_parameter),
        ("torch._tensor", "_rebuild_from_type_v2"):
            Function("torch._tensor._rebuild_from_type_v2", _rebuild_from_type_v2(rebuild)),
        ("torch", "Tensor"): TorchClass("torch.Tensor"),
        ("torch.nn.parameter", "Parameter"): TorchClass("torch.nn.Parameter"),
        ("torch", "Size"): Function("torch.Size", _torch_size),
        ("_codecs", "encode"): Function("_codecs.encode", _codecs_encode),
    }
    for mod in ("builtins", "__builtin__"):  # protocol-2 pickles write __builtin__
        out[(mod, "set")] = Function(f"{mod}.set", lambda items=(): set(_flat_items(items, "set()")))
        out[(mod, "frozenset")] = Function(
            f"{mod}.frozenset", lambda items=(): frozenset(_flat_items(items, "frozenset()")))
        out[(mod, "complex")] = Function(f"{mod}.complex", _complex, newobj_ok=True)
        out[(mod, "slice")] = Function(f"{mod}.slice", _slice)
    for name in STORAGE_DTYPES:
        out[("torch", name)] = StorageType(name)
    out.update(numpy_globals())
    return out
