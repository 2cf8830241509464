"""Whole models saved with ``torch.save(model)``, loaded only when the caller trusts the file.

By default :func:`shims.load` refuses them (their pickle names the model's class).  With
``weights_only=False`` the unpickler turns every class it meets into an inert :class:`Record`
(class path + constructor arguments + state): nothing named in the file is imported or called
while reading.  Afterwards :func:`shims.checkpoint.module_rebuild.rebuild` makes the converted
model from the records, module by module, as pickle would.
"""
from __future__ import annotations

import collections
from typing import Any, Dict

import jittor as jt



class Record:
    """An object of a class named in a trusted checkpoint: what the pickle said, nothing run."""

    path = module = qualname = "?"

    def __new__(cls, *args, **kwargs):  # stdlib pickle's NEWOBJ calls only __new__
        self = super().__new__(cls)
        self.args, self.kwargs = args, kwargs
        self.state: Any = None
        self.items: list = []
        self.mapping: Dict[Any, Any] = {}
        self.newobj = False
        return self

    def build(self, state) -> None:
        """BUILD: remember the state (a module's ``__dict__``)."""
        self.state = state

    __setstate__ = build  # BUILD as stdlib pickle runs it

    def append(self, value) -> None:
        """APPEND: remember the item."""
        self.items.append(value)

    def extend(self, values) -> None:
        """APPENDS: remember the items."""
        self.items.extend(values)

    def __setitem__(self, key, value) -> None:
        self.mapping[key] = value

    def __repr__(self):
        return f"<{self.path} from the checkpoint>"

    def is_module(self) -> bool:
        """Whether the state looks like a ``torch.nn.Module``'s ``__dict__``."""
        return isinstance(self.state, dict) and "_parameters" in self.state and "_modules" in self.state


def record_class(module: str, name: str) -> type:
    """A fresh :class:`Record` subclass standing for ``module.name`` in one load."""
    return type(name, (Record,), {"path": f"{module}.{name}", "module": module, "qualname": name,
                                  "__slots__": ()})


def module_state(rec: Record, prefix: str = "") -> Dict[str, Any]:
    """The recorded model's ``state_dict``: parameters and persistent buffers, recursively."""
    return state_of_dict(rec.state, prefix)


def state_of_dict(state: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """The ``state_dict`` of a torch module's pickled ``__dict__``: its parameters and persistent
    buffers, and its submodules' (recorded ones, or ones already rebuilt as Jittor modules)."""
    out: Dict[str, Any] = collections.OrderedDict()
    skip = state.get("_non_persistent_buffers_set") or set()
    for group in ("_parameters", "_buffers"):
        for k, v in (state.get(group) or {}).items():
            if v is not None and not (group == "_buffers" and k in skip):
                out[prefix + k] = v
    for k, sub in (state.get("_modules") or {}).items():
        if isinstance(sub, Record) and sub.is_module():
            out.update(module_state(sub, f"{prefix}{k}."))
        elif isinstance(sub, jt.Module):
            out.update((f"{prefix}{k}.{name}", v) for name, v in sub.state_dict().items())
    return out
