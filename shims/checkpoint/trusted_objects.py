"""Objects of a trusted checkpoint made again as pickle makes them: ``__new__`` and their state.

``torch.load(f, weights_only=False)`` unpickles an object of the program's own (a model, a
dataset cache, ``[model, criterion, optimizer]``) by creating it with ``cls.__new__(cls)`` and
restoring its ``__dict__``: its ``__init__`` never runs, so a constructor's arguments are never
needed.  :func:`restore` does the same for a :class:`~.whole_module.Record` the restricted
unpickler made from NEWOBJ, after the read, with the class imported by its path from the
converted project.  Only that is made: a class with a ``__new__`` of its own, a record made by
calling a global (REDUCE: ``os.system(...)``), torch's own classes, and list/dict subclasses
are refused.  The one call kept is ``getattr(owner, name)`` on an object restored by the same
load, which is how pickle writes a bound method stored as a value.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Dict

import jittor as jt

from .errors import CheckpointError
from .whole_module import Record


def resolve(module: str, qualname: str, what: str):
    """The object ``module.qualname`` names, importing ``module`` (the trusted file asks for it)."""
    if module.split(".")[0] in ("torch", "torchvision"):
        raise CheckpointError(f"{what} is torch's own {module}.{qualname}: torch's objects cannot "
                              "become Jittor ones; save its state_dict() instead")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise CheckpointError(f"{what} {module}.{qualname} is not importable here ({e}); run from "
                              "the converted project's root") from None
    return obj


def new_object(rec: Record, cls: type):
    """``cls.__new__(cls)`` as pickle's NEWOBJ makes it, only for a class whose ``__new__`` is
    object's or ``jittor.Module``'s (shims registers the module) and a record without arguments."""
    if cls.__new__ not in (object.__new__, jt.Module.__new__) or rec.args or rec.kwargs:
        raise CheckpointError(f"an object of class {rec.path} cannot be loaded: its class has a "
                              "__new__ of its own")
    return cls.__new__(cls)


def restore(rec: Record, finish: Callable[[Any], Any], memo: Dict[int, Any]):
    """The object ``rec`` stands for: ``__new__`` of its class, then its state, as pickle does.

    ``memo`` gets the new object before its state is finished, so a state that reaches the
    object again (a bound method of its owner, a cycle) gets the same object.
    """
    if not rec.newobj:
        if rec.path == "builtins.getattr":
            return _bound(rec, finish)
        raise CheckpointError(f"an object of class {rec.path} cannot be loaded: the file calls it "
                              "to make it; only objects pickled as class + state are made again")
    if rec.items or rec.mapping:
        raise CheckpointError(f"an object of class {rec.path} cannot be loaded: list and dict "
                              "subclasses are not made again")
    cls = resolve(rec.module, rec.qualname, "the object's class")
    if not isinstance(cls, type):
        raise CheckpointError(f"{rec.path} is not a class here; refusing to construct it")
    obj = new_object(rec, cls)
    memo[id(rec)] = obj
    state = finish(rec.state)
    if state is None:
        return obj
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    setstate = getattr(obj, "__setstate__", None)
    if setstate is not None and slots is None:
        setstate(state)  # the class's own restore, as pickle calls it
        return obj
    if state:
        if not isinstance(state, dict):
            raise CheckpointError(f"the state of {rec.path} is a {type(state).__name__}, not a dict")
        obj.__dict__.update(state)
    for k, v in (slots or {}).items():
        setattr(obj, k, v)
    return obj


def _bound(rec: Record, finish: Callable[[Any], Any]):
    """``getattr(owner, name)`` for a bound method of an object this load restored."""
    if len(rec.args) != 2 or not isinstance(rec.args[1], str) or rec.kwargs \
            or not (isinstance(rec.args[0], Record) and rec.args[0].newobj):
        raise CheckpointError("getattr in the file is allowed only as a bound method of an "
                              "object the file restores")
    return getattr(finish(rec.args[0]), rec.args[1])
