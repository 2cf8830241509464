"""The restricted unpickler behind :func:`shims.load`.

The pure-Python unpickler, so that opcodes can be checked one by one:

* globals resolve only through a per-load allow-list of inert stand-ins (:mod:`.standins`);
  with ``trust_classes`` (``weights_only=False``) any other global becomes an inert
  :class:`~.whole_module.Record` class: nothing named in the file is imported or called;
* BUILD is allowed only on builders made by this load (numpy arrays, records) and on
  OrderedDict instances made by this load (torch stores ``_metadata`` that way);
* NEWOBJ only on stand-ins that allow it (``complex``) and on records;
* dict keys and set items must be scalars or flat tuples: hashing a tuple DAG is exponential
  in its depth, a few hundred bytes of pickle could otherwise hang the process.
"""
from __future__ import annotations

import collections
import pickle
from typing import Any, Callable, Dict, Tuple

from .errors import CheckpointError, ForbiddenGlobalError
from .numpy_globals import ArrayBuilder, DTypeBuilder
from .safe_globals import allowed
from .standins import Function
from .torch_globals import is_flat_key, make_globals
from .whole_module import Record, record_class

_HINT = ("shims.load only builds tensors, storages, numpy arrays, OrderedDict and plain "
         "containers/scalars; the file may contain code")
_MODULE_HINT = (". If it is a whole model saved with torch.save(model), save model.state_dict() "
                "instead and load that; or, if you trust the file, shims.load(path, "
                "weights_only=False) rebuilds the model from its converted class")

_P = pickle._Unpickler


def _op(code: bytes) -> int:
    return code[0]


class SafeUnpickler(_P):
    """Unpickler that resolves only allow-listed globals and torch storage ids."""

    dispatch = dict(_P.dispatch)

    def __init__(self, file, storage_loader: Callable[[Tuple], Any], trust_classes: bool = False):
        super().__init__(file, encoding="utf-8")
        self._globals: Dict[Tuple[str, str], Any] = make_globals()
        self._storage_loader = storage_loader
        self._trust = trust_classes
        self._records: Dict[Tuple[str, str], type] = {}

    def find_class(self, module: str, name: str):
        """Resolve a global to a stand-in of this load, or refuse it."""
        if not isinstance(module, str) or not isinstance(name, str):
            raise CheckpointError("malformed global")
        key = (module, name)
        if key in self._globals:
            return self._globals[key]
        if self._trust or allowed(module, name):  # allowed: torch.serialization.safe_globals
            if key not in self._records:
                self._records[key] = record_class(module, name)
            return self._records[key]
        hint = _MODULE_HINT if name[:1].isupper() else ""
        raise ForbiddenGlobalError(f"refusing to unpickle global '{module}.{name}': {_HINT}{hint}")

    def persistent_load(self, pid):
        """torch's ``('storage', type, key, location, numel[, view])`` ids."""
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise CheckpointError(f"unsupported persistent id {pid!r:.80}")
        return self._storage_loader(pid[1:])

    # -- opcodes that could reach outside this load's own objects

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, (Record, ArrayBuilder, DTypeBuilder)):
            inst.build(state)
            return
        if type(inst) is collections.OrderedDict and isinstance(state, dict) \
                and all(isinstance(k, str) for k in state):
            inst.__dict__.update(state)  # an OrderedDict made by this load: torch's _metadata
            return
        raise CheckpointError(f"the pickle tries to set the state of {type(inst).__name__} "
                              f"{inst!r:.60} (BUILD): refused")

    dispatch[_op(pickle.BUILD)] = load_build

    def _newobj(self, cls, args, kwargs=None):
        if isinstance(cls, type) and issubclass(cls, Record):
            rec = cls(*args, **(kwargs or {}))
            rec.newobj = True  # made as pickle makes objects (__new__ + state), not called
            return rec
        if isinstance(cls, Function):
            return cls.newobj(args, kwargs)
        raise CheckpointError(f"NEWOBJ on {cls!r:.60} refused")

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(args, tuple):
            raise CheckpointError("NEWOBJ without an argument tuple")
        self.append(self._newobj(cls, args))

    dispatch[_op(pickle.NEWOBJ)] = load_newobj

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise CheckpointError("NEWOBJ_EX with malformed arguments")
        self.append(self._newobj(cls, args, kwargs))

    dispatch[_op(pickle.NEWOBJ_EX)] = load_newobj_ex

    def _check_key(self, key):
        if not is_flat_key(key):
            raise CheckpointError(f"dict key of type {type(key).__name__} refused")

    def _target(self, obj, what: str):
        if isinstance(obj, (dict, Record)):
            return obj
        raise CheckpointError(f"{what} on a {type(obj).__name__} refused")

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._check_key(key)
        self._target(self.stack[-1], "SETITEM")[key] = value

    dispatch[_op(pickle.SETITEM)] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        target = self._target(self.stack[-1], "SETITEMS")
        for i in range(0, len(items) - 1, 2):
            self._check_key(items[i])
            target[items[i]] = items[i + 1]

    dispatch[_op(pickle.SETITEMS)] = load_setitems

    def load_additems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        if not isinstance(target, set):
            raise CheckpointError(f"ADDITEMS on a {type(target).__name__} refused")
        for item in items:
            self._check_key(item)
            target.add(item)

    dispatch[_op(pickle.ADDITEMS)] = load_additems

    def load_frozenset(self):
        items = self.pop_mark()
        for item in items:
            self._check_key(item)
        self.append(frozenset(items))

    dispatch[_op(pickle.FROZENSET)] = load_frozenset

    def load_append(self):
        value = self.stack.pop()
        target = self.stack[-1]
        if not isinstance(target, (list, Record)):
            raise CheckpointError(f"APPEND on a {type(target).__name__} refused")
        target.append(value)

    dispatch[_op(pickle.APPEND)] = load_append

    def load_appends(self):
        items = self.pop_mark()
        target = self.stack[-1]
        if not isinstance(target, (list, Record)):
            raise CheckpointError(f"APPENDS on a {type(target).__name__} refused")
        target.extend(items)

    dispatch[_op(pickle.APPENDS)] = load_appends
