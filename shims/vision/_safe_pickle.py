"""Reading CIFAR's python batches without arbitrary unpickling.

torchvision calls ``pickle.load(f, encoding="latin1")``, which would run any code the file
names.  Here the checkpoint reader's restricted unpickler resolves only numpy's array
reconstruction globals (and ``_codecs.encode`` and an argument-less ``bytes()``, how protocol 2
spells bytes): anything else in
the file is refused with :class:`shims.checkpoint.errors.ForbiddenGlobalError`.
"""
from __future__ import annotations

from shims.checkpoint.errors import CheckpointError
from shims.checkpoint.numpy_globals import ArrayBuilder, numpy_globals
from shims.checkpoint.standins import Function
from shims.checkpoint.torch_globals import _codecs_encode
from shims.checkpoint.unpickler import SafeUnpickler

__all__ = ["load_numpy_pickle"]


def _no_storage(pid):
    raise CheckpointError("a dataset batch holds no torch storages")


def _empty_bytes(*args):
    # protocol 2 spells b"" as __builtin__.bytes() (numpy arrays with no elements hold one)
    if args:
        raise CheckpointError("bytes() with arguments refused")
    return b""


class _NumpyUnpickler(SafeUnpickler):
    """:class:`SafeUnpickler` whose allow-list is numpy's array globals only; py2 strings are
    latin-1 (as torchvision reads CIFAR)."""

    def __init__(self, file):
        super().__init__(file, _no_storage)
        self.encoding = "latin1"
        self._globals = {**numpy_globals(), ("_codecs", "encode"): Function("_codecs.encode", _codecs_encode),
                         **{(m, "bytes"): Function(f"{m}.bytes", _empty_bytes) for m in ("builtins", "__builtin__")}}


def _resolve(obj, depth: int = 0):
    if depth > 32:
        raise CheckpointError("nesting too deep for a dataset batch")
    if isinstance(obj, ArrayBuilder):
        return obj.resolved()
    if isinstance(obj, dict):
        return {k: _resolve(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_resolve(v, depth + 1) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_resolve(v, depth + 1) for v in obj)
    return obj


def load_numpy_pickle(path) -> object:
    """The object a pickle of plain containers, scalars, strings and numpy arrays holds; the
    error names ``path`` when the file holds anything else or is malformed."""
    with open(path, "rb") as f:
        try:
            return _resolve(_NumpyUnpickler(f).load())
        except CheckpointError as e:
            raise type(e)(f"{path}: {e}") from None
        except Exception as e:  # truncated or not a pickle at all
            raise CheckpointError(f"{path}: not a readable dataset pickle ({type(e).__name__}: {e})") from None
