"""``torch_utils.persistence`` objects (StyleGAN2/3's network pickles) rebuilt as Jittor objects.

Such a pickle stores each network as ``_reconstruct_persistent_obj(meta)``, ``meta`` holding the
torch *source* of the module that defines its class (``module_src``), the class name and the
object's ``__dict__`` (``state``).  Upstream execs that source; here it is converted with jtport's
converter in memory (the same conversion ``jtport convert`` gives the file, so a file saved by
the project's own code rebuilds the class the converted project has), exec'd once per source as
a module, and the object is made from it:

* a torch module: the converted class constructed from the recorded ``_init_args`` /
  ``_init_kwargs`` (persistence records them), then its parameters and buffers loaded from the
  recorded ones with ``load_state_dict(strict=True)``, each parameter's ``requires_grad`` and the
  ``training`` flag restored;
* any other persistent object: ``__dict__`` updated from the state, as upstream does.

The converter (``porter``) is imported only when such an object is met; nothing else in
``shims`` needs it (docs/ARCHITECTURE.md: the one allowed arrow back up, and why).  Upstream's
``persistence.import_hook`` hooks are not run.
"""
from __future__ import annotations

import hashlib
import linecache
import pickle
import sys
import types
from typing import Any, Callable, Dict

import jittor as jt

from .state_dict import load_state_dict
from .whole_module import state_of_dict

_MODULES: Dict[str, types.ModuleType] = {}  # sha256 of the torch source -> converted module


def reconstructor(find: Callable[[str], Any]) -> Callable[[dict], Any]:
    """The stand-in for ``<pkg>.persistence._reconstruct_persistent_obj``; ``find(name)``
    resolves another name of that (converted) persistence module."""
    def _reconstruct_persistent_obj(meta):
        return rebuild(meta, find)
    return _reconstruct_persistent_obj


def rebuild(meta: dict, find: Callable[[str], Any]):
    """The converted object ``meta`` describes (module docstring)."""
    if not (isinstance(meta, dict) and meta.get("type") == "class"
            and isinstance(meta.get("module_src"), str) and isinstance(meta.get("class_name"), str)
            and isinstance(meta.get("state"), dict)):
        raise pickle.UnpicklingError("_reconstruct_persistent_obj: not a persistence record of a class")
    module = converted_module(meta["module_src"])
    name, state = meta["class_name"], meta["state"]
    cls = module.__dict__.get(name)
    if not isinstance(cls, type):
        raise pickle.UnpicklingError(f"the pickled source defines no class {name!r}")
    cls = _persistent(cls, find)
    if "_parameters" not in state or "_modules" not in state:
        obj = cls.__new__(cls)
        obj.__dict__.update(state)
        return obj
    return _module(cls, state)


def _persistent(cls: type, find: Callable[[str], Any]) -> type:
    """``persistence.persistent_class(cls)``, as upstream applies it (a no-op for a class the
    source decorates); the class itself when the persistence module has no such function."""
    try:
        decorate = find("persistent_class")
    except (ImportError, AttributeError):
        return cls
    return decorate(cls)


def _module(cls: type, state: dict):
    args, kwargs = state.get("_init_args", ()), state.get("_init_kwargs", {})
    if not isinstance(args, (tuple, list)) or not isinstance(kwargs, dict):
        raise pickle.UnpicklingError(f"{cls.__name__}: the pickle records no constructor arguments")
    model = cls(*args, **kwargs)
    if not isinstance(model, jt.Module):
        raise pickle.UnpicklingError(f"{cls.__name__} is a torch module in the pickle but its "
                                     "converted class makes no Jittor module")
    weights = state_of_dict(state)
    load_state_dict(model, weights, strict=True)
    for key, p in model.named_parameters():
        if key in weights:
            p.requires_grad = bool(getattr(weights[key], "requires_grad", True))
    return model.train(bool(state.get("training", True)))


def converted_module(src: str) -> types.ModuleType:
    """The torch source ``src`` converted to Jittor and exec'd as a module (once per source).

    Its lines are registered with ``linecache`` under the module's ``__file__``, so
    ``inspect.getsource`` works on it as on a file (persistence's decorator reads it).
    """
    key = hashlib.sha256(src.encode("utf-8", "surrogatepass")).hexdigest()
    if key in _MODULES:
        return _MODULES[key]
    try:
        # lazy: the one arrow from the runtime up to the converter.  A network pickle embeds torch
        # source, and only conversion makes it Jittor; the converted program that loads it runs on
        # its own (nobody could hand it a converter), and the converter is needed only here, when
        # such a pickle is met.  Through porter's public API (``porter.convert_source``).
        from porter import convert_source
    except ImportError as e:
        raise pickle.UnpicklingError(
            "this pickle embeds torch source (torch_utils.persistence); loading it under Jittor "
            f"converts that source and needs jtport's converter (porter): {e}") from None
    result = convert_source(src, path=f"<pickled module {key[:12]}>")
    if result.report.error is not None:
        raise pickle.UnpicklingError(f"the pickled source does not convert: {result.report.error.reason}")
    name = f"_jtport_pickled_{key[:16]}"
    filename = f"<jtport: pickled module {key[:12]}, converted>"
    linecache.cache[filename] = (len(result.code), None, result.code.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(result.code, filename, "exec"), module.__dict__)  # noqa: S102 - the pickle's own code, as upstream
    except BaseException:
        del sys.modules[name]
        linecache.cache.pop(filename, None)
        raise
    _MODULES[key] = module
    return module
