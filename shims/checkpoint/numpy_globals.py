"""numpy arrays and scalars inside a torch pickle, rebuilt without numpy's own unpickling path.

``torch.save({"mean": np.zeros(3)})`` pickles the array through
``numpy.core.multiarray._reconstruct`` (``numpy._core`` under numpy 2), ``numpy.ndarray``,
``numpy.dtype`` and a BUILD of ``(version, shape, dtype, is_fortran, raw bytes)``; a numpy scalar
through ``numpy.core.multiarray.scalar(dtype, raw bytes)``.  Those globals resolve here to
builders that accept exactly that data, for plain numeric dtypes only: an object array
(``dtype('O')``) carries pickled Python objects and is refused.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Tuple

import numpy as np

from .errors import CheckpointError
from .standins import Function, Inert, TorchClass

_KINDS = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"}
_ORDERS = {"<": "<", ">": ">", "|": "|", "=": "<"}  # '=' is the writer's native order
_NDARRAY = TorchClass("numpy.ndarray")


class DTypeBuilder(Inert):
    """``numpy.dtype('f4', False, True)`` followed by BUILD ``(3, '<', None, ...)``."""

    __slots__ = ("spec", "dtype")

    def __init__(self, spec):
        if not isinstance(spec, str) or spec not in _KINDS:
            raise CheckpointError(f"numpy dtype {spec!r:.40} refused: only bool, integer, float "
                                  "and complex arrays can be loaded")
        self.spec, self.dtype = spec, None

    def build(self, state) -> None:
        """BUILD: fix the byte order (numpy's dtype state tuple)."""
        if self.dtype is not None or not isinstance(state, tuple) or len(state) < 2 \
                or state[1] not in _ORDERS:
            raise CheckpointError("malformed numpy dtype state")
        if any(v is not None for v in state[2:5]):
            raise CheckpointError("structured numpy dtypes are refused")
        order = "|" if self.spec in ("b1", "i1", "u1") else _ORDERS[state[1]]
        self.dtype = np.dtype(order + self.spec)

    def resolved(self) -> np.dtype:
        """The dtype; a dtype pickled without its BUILD is little-endian (numpy writes one always)."""
        return self.dtype if self.dtype is not None else np.dtype(self.spec).newbyteorder("<")


class ArrayBuilder(Inert):
    """``_reconstruct(ndarray, (0,), b'b')`` followed by BUILD of the array's state."""

    __slots__ = ("array",)

    def __init__(self):
        self.array = None

    def build(self, state) -> None:
        """BUILD: ``(version, shape, dtype, is_fortran, raw bytes)`` -> a writable array."""
        if self.array is not None or not isinstance(state, tuple) or len(state) != 5 or state[0] != 1:
            raise CheckpointError("malformed numpy array state")
        _, shape, dtype, fortran, raw = state
        if not isinstance(dtype, DTypeBuilder):
            raise CheckpointError("numpy array state without a dtype")
        if not isinstance(shape, tuple) or len(shape) > 64 or \
                not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise CheckpointError(f"numpy array with invalid shape {shape!r:.80}")
        if isinstance(raw, str):  # protocol 0/1 writers
            raw = raw.encode("latin1")
        dt = dtype.resolved()
        if not isinstance(raw, bytes) or len(raw) != math.prod(shape) * dt.itemsize:
            raise CheckpointError(f"numpy array of shape {shape} with {len(raw) if isinstance(raw, bytes) else '?'}"
                                  " bytes of data")
        arr = np.frombuffer(raw, dtype=dt).reshape(shape, order="F" if fortran else "C")
        self.array = arr.astype(dt.newbyteorder("="), copy=True)

    def resolved(self) -> np.ndarray:
        """The array; an array never BUILT is malformed."""
        if self.array is None:
            raise CheckpointError("numpy array without data")
        return self.array


def _reconstruct(subtype, shape, typecode):
    if subtype is not _NDARRAY or shape != (0,) or typecode not in (b"b", "b"):
        raise CheckpointError("numpy _reconstruct with unexpected arguments")
    return ArrayBuilder()


def _dtype(spec, align=False, copy=True):
    return DTypeBuilder(spec)


def _scalar(dtype, raw=None):
    if not isinstance(dtype, DTypeBuilder):
        raise CheckpointError("numpy scalar without a dtype")
    if isinstance(raw, str):
        raw = raw.encode("latin1")
    dt = dtype.resolved()
    if not isinstance(raw, bytes) or len(raw) != dt.itemsize:
        raise CheckpointError("numpy scalar with the wrong number of bytes")
    return np.frombuffer(raw, dtype=dt)[0].astype(dt.newbyteorder("="))


def numpy_globals() -> Dict[Tuple[str, str], Any]:
    """The numpy part of the allow-list, fresh per load."""
    out: Dict[Tuple[str, str], Any] = {("numpy", "ndarray"): _NDARRAY,
                                       ("numpy", "dtype"): Function("numpy.dtype", _dtype)}
    for core in ("numpy.core.multiarray", "numpy._core.multiarray"):
        out[(core, "_reconstruct")] = Function(f"{core}._reconstruct", _reconstruct)
        out[(core, "scalar")] = Function(f"{core}.scalar", _scalar)
    return out
