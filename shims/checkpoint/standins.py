"""What allow-listed pickle globals resolve to: fresh, inert stand-ins made for one load.

A pickle can mutate what its globals resolve to (BUILD sets attributes, including
``__defaults__`` of a function).  So no global ever resolves to a shared object: each load makes
its own stand-ins (:func:`shims.checkpoint.torch_globals.make_globals`), and every stand-in
refuses BUILD.  Calling a stand-in checks its arguments and builds plain data (tuples,
containers, :class:`PendingTensor`).
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

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
