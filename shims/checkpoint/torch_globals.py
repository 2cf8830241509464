"""The allow-list of pickle globals (:func:`make_globals`) and torch's rebuild functions it names.

Each load makes its own stand-ins (:mod:`.standins`); the rebuild functions check their arguments
and build plain data over storage stand-ins (:mod:`.storages`); numpy's globals come from
:mod:`.numpy_globals`.
"""
from __future__ import annotations

import collections
from typing import Any, Dict, Tuple

from .errors import CheckpointError
from .numpy_globals import numpy_globals
from .standins import STORAGE_DTYPES, Function, PendingTensor, StorageType, TorchClass
from .storages import StorageRef


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
