"""Parameter containers: ``ParameterList``, ``ParameterDict``, and ``Buffer``.
"""
from __future__ import annotations


import jittor as jt

from .module import _BUFFERS, Module

__all__ = ["ParameterList", "ParameterDict", "Buffer"]


class ParameterList(Module):
    """``torch.nn.ParameterList``: parameters under the keys ``0``, ``1``, ... (as torch's
    ``state_dict``); indexing, ``len``, iteration, ``append``, ``extend``."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_shim_n"] = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self.__dict__["_shim_n"]

    def _key(self, idx: int) -> str:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return [self[i] for i in range(len(self))[idx]]
        return self.__dict__[self._key(idx)]

    def __setitem__(self, idx: int, param) -> None:
        object.__setattr__(self, self._key(idx), param)

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def append(self, value):
        """Add ``value`` at the end."""
        object.__setattr__(self, str(len(self)), value)
        self.__dict__["_shim_n"] += 1
        return self

    def extend(self, values):
        """Append each of ``values``."""
        for v in values:
            self.append(v)
        return self

    def execute(self, *args, **kw):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """``torch.nn.ParameterDict``: parameters under their keys; a dict's methods."""

    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__["_shim_keys"] = []
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        if key not in self.__dict__["_shim_keys"]:
            raise KeyError(key)
        return self.__dict__[key]

    def __setitem__(self, key: str, value) -> None:
        if key not in self.__dict__["_shim_keys"]:
            self.__dict__["_shim_keys"].append(key)
        object.__setattr__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self.__dict__["_shim_keys"].remove(key)
        object.__delattr__(self, key)

    def __contains__(self, key) -> bool:
        return key in self.__dict__["_shim_keys"]

    def __len__(self) -> int:
        return len(self.__dict__["_shim_keys"])

    def __iter__(self):
        return iter(list(self.__dict__["_shim_keys"]))

    def keys(self):
        """Keys in insertion order."""
        return list(self.__dict__["_shim_keys"])

    def values(self):
        """Parameters in insertion order."""
        return [self[k] for k in self.keys()]

    def items(self):
        """(key, parameter) pairs in insertion order."""
        return [(k, self[k]) for k in self.keys()]

    def update(self, parameters) -> None:
        """Add entries from a mapping or an iterable of pairs."""
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in pairs:
            self[k] = v

    def pop(self, key: str):
        """Remove ``key`` and return its parameter."""
        v = self[key]
        del self[key]
        return v

    def execute(self, *args, **kw):
        raise RuntimeError("ParameterDict should not be called.")


class Buffer:
    """``torch.nn.Buffer(data, persistent=True)``: assigned to a ``shims.nn.Module`` attribute it
    registers a buffer (``self.x = nn.Buffer(t)`` is ``self.register_buffer('x', t)``)."""

    def __new__(cls, data=None, *, persistent: bool = True):
        v = jt.zeros(0) if data is None else data
        v = v.detach()
        v.stop_grad()
        _BUFFERS[id(v)] = (v, persistent)  # read (and dropped) by shims.nn.Module.__setattr__
        return v
