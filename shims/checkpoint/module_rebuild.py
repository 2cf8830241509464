"""A whole model that torch pickled (``torch.save(model)``) made again as the converted Jittor model.

torch's own load never calls a constructor: pickle makes each module with ``__new__`` and gives it
its ``__dict__``.  A constructor's arguments are therefore nowhere in the file, and a converted
class whose ``__init__`` needs some (``Net(n_layers, width)``) cannot simply be called.  So the
model is made again module by module, as pickle makes it, from what its ``__dict__`` records:

- a class of the program's own (imported by its path from the converted project, and required
  to be a Jittor module): ``__new__``, the Jittor base class initialised, then every attribute the
  ``__dict__`` holds: plain values, submodules (made the same way), parameters
  (``register_parameter``) and buffers (``register_buffer``, persistent or not as recorded);
- one of torch's layers (``torch.nn.modules.conv.Conv2d``): the converted layer of the mapping
  table, constructed with the arguments torch's signature names, read from the attributes torch
  keeps under the same names (``in_channels``, ``kernel_size``, ``eps``; ``bias`` is whether a
  bias parameter is recorded); containers get their rebuilt children.

Then every parameter and buffer is loaded with ``load_state_dict(strict=True)``, and each module
gets its recorded training flag.  The old ``weight_norm`` (a forward pre-hook pickled with its
module) is applied again with ``shims.nn.weight_norm``; any other hook torch would restore but
this cannot is an error naming the module, never a silently different model.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Dict, List, Tuple

import jittor as jt

from porter.mapping import default_table

from ..namespace import resolve as resolve_torch_name
from .errors import CheckpointError
from .state_dict import load_state_dict
from .trusted_objects import new_object, resolve
from .whole_module import Record, module_state

#: what ``torch.nn.Module.__init__`` puts in every module's ``__dict__``: bookkeeping that the
#: Jittor module keeps its own way (the state groups are read separately)
TORCH_MODULE_INTERNALS = frozenset({
    "training", "_parameters", "_buffers", "_non_persistent_buffers_set", "_modules",
    "_backward_pre_hooks", "_backward_hooks", "_is_full_backward_hook", "_forward_hooks",
    "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs", "_state_dict_hooks", "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_compiled_call_impl",
})
_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")

#: torch layers whose signature is ``(*args, **kwargs)``: the attributes naming their arguments
_RNN_ARGUMENTS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional")
_VARARG_LAYERS = {"RNN": _RNN_ARGUMENTS + ("nonlinearity",), "GRU": _RNN_ARGUMENTS,
                  "LSTM": _RNN_ARGUMENTS + ("proj_size",)}  # torch's GRU and RNN refuse proj_size
#: the forward pre-hook of torch's old ``weight_norm`` (TCN, WaveNet-era code): made again with
#: ``shims.nn.weight_norm``, what the converter maps ``torch.nn.utils.weight_norm`` to
_WEIGHT_NORM = "torch.nn.utils.weight_norm.WeightNorm"
_CONTAINERS = ("Sequential", "ModuleList", "ModuleDict")
_NOT_ARGUMENTS = frozenset({"device", "dtype"})


def rebuild(rec: Record, finish: Callable[[Any], Any]):
    """The converted model that recorded torch model ``rec`` stands for, its state loaded."""
    if not rec.is_module():
        raise CheckpointError(f"an object of class {rec.path} cannot be rebuilt: only "
                              "whole models (torch.nn.Module subclasses) are")
    flags: List[Tuple[jt.Module, bool]] = []
    model = _module(rec, finish, rec.qualname, flags)
    load_state_dict(model, finish(module_state(rec)), strict=True)
    for mod, training in flags:  # one module each: train()/eval() would set its children too
        mod.is_train = training
    return model


def _module(rec: Record, finish, where: str, flags) -> jt.Module:
    state = rec.state
    norms = _weight_norms(rec, where)
    children = collections.OrderedDict(
        (name, _child(sub, finish, f"{where}.{name}", flags)) for name, sub in (state.get("_modules") or {}).items())
    if rec.module.split(".")[0] in ("torch", "torchvision"):
        mod = _torch_layer(rec, finish, children, where)
    else:
        mod = _own_module(rec, finish, children, where)
    for name, dim in norms:  # g and v become the module's parameters; the final load fills them
        if isinstance(mod.__dict__.get(name), jt.Var):
            resolve_torch_name("torch.nn.utils.weight_norm")(mod, name, dim)
        else:
            raise CheckpointError(f"{where}: weight_norm of {name!r}, which the converted "
                                  f"{type(mod).__name__} does not hold")
    flags.append((mod, state.get("training", True) is not False))
    return mod


def _weight_norms(rec: Record, where: str) -> List[Tuple[str, Any]]:
    """``(name, dim)`` of each old-style ``torch.nn.utils.weight_norm`` on ``rec`` (a forward
    pre-hook torch pickles with the module); any other hook is an error naming the module."""
    norms = []
    for hooks in _HOOKS:
        for hook in (rec.state.get(hooks) or {}).values():
            if (hooks == "_forward_pre_hooks" and isinstance(hook, Record) and hook.path == _WEIGHT_NORM
                    and isinstance(hook.state, dict) and isinstance(hook.state.get("name"), str)):
                norms.append((hook.state["name"], hook.state.get("dim")))
                continue
            what = getattr(hook, "path", type(hook).__name__)
            raise CheckpointError(f"{where} ({rec.path}) has {hooks} ({what}), which cannot be "
                                  "restored; save its state_dict() with torch and load it into the "
                                  "model the converted code builds")
    return norms


def _child(sub, finish, where: str, flags):
    if sub is None or isinstance(sub, jt.Module):
        return sub
    if isinstance(sub, Record) and sub.is_module():
        return _module(sub, finish, where, flags)
    raise CheckpointError(f"{where}: a submodule of class {getattr(sub, 'path', type(sub).__name__)} "
                          "is not a module")


def _torch_layer(rec: Record, finish, children: Dict[str, Any], where: str) -> jt.Module:
    """One of torch's own layers, as the mapping table converts it, built from its attributes."""
    name = rec.qualname
    if not rec.module.startswith("torch.nn"):
        raise CheckpointError(f"{where} is torchvision's {rec.path}: only the program's own classes "
                              "and torch.nn's layers are made again; save the state_dict() instead")
    try:
        layer = resolve_torch_name(f"torch.nn.{name}")
    except AttributeError:
        raise CheckpointError(f"{where}: torch.nn has no {name} ({rec.path})") from None
    if name in _CONTAINERS:  # ModuleList takes its modules as a list; the others a name -> module mapping
        return layer(list(children.values())) if name == "ModuleList" else layer(children)
    try:
        mod = layer(**constructor_arguments(f"torch.nn.{name}", rec.state, where))
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{where}: cannot build torch.nn.{name} from the attributes the file "
                              f"records ({e})") from None
    _set_tensors(mod, rec.state, finish, built=True)
    for key, child in children.items():  # layers whose children are arguments (Transformer...) rebuild them
        if not isinstance(getattr(mod, key, None), jt.Module) and child is not None:
            raise CheckpointError(f"{where}: torch's {name} holds a submodule {key!r} the converted "
                                  "layer does not build")
    return mod


def constructor_arguments(api: str, state: Dict[str, Any], where: str = "") -> Dict[str, Any]:
    """The keyword arguments torch's ``api`` layer was built with, read from its ``__dict__``:
    each parameter of torch's signature that the layer keeps as an attribute of the same name,
    and ``bias`` as whether a bias parameter is recorded; only those the converted layer takes
    (a structure they would change is caught by the strict load of the state)."""
    entry = default_table().entries.get(api)
    names = _VARARG_LAYERS.get(api.rsplit(".", 1)[-1])
    if names is None:
        names = sorted(entry.torch_takes or ()) if entry is not None else ()
    if entry is not None and entry.accepts is not None:  # what the converted layer cannot take
        names = [n for n in names if n in entry.accepts or n in entry.rename]  # the final load checks
    if not names:
        raise CheckpointError(f"{where}: torch's signature of {api} is unknown to jtport's table")
    params = state.get("_parameters") or {}
    out = {}
    for n in names:
        if n in _NOT_ARGUMENTS or n.startswith("_"):
            continue
        if n in state and n not in params:
            out[n] = state[n]
        elif n == "bias" and "bias" in params:
            out[n] = params["bias"] is not None
    return out


def _own_module(rec: Record, finish, children: Dict[str, Any], where: str) -> jt.Module:
    """A class of the program's own: ``__new__``, its Jittor base initialised, then its
    ``__dict__``'s attributes, submodules, parameters and buffers, as pickle restores them."""
    cls = resolve(rec.module, rec.qualname, "the model's class")
    if not (isinstance(cls, type) and issubclass(cls, jt.Module)):
        raise CheckpointError(f"{rec.path} is not a Jittor module here; refusing to construct it")
    obj = new_object(rec, cls)
    base = _library_base(cls)
    layer = f"torch.nn.{base.__name__}"  # class Scaled(nn.Linear): the layer's own arguments
    if base.__name__ != "Module" and layer in default_table().entries:
        base.__init__(obj, **constructor_arguments(layer, rec.state, where))
    else:
        base.__init__(obj)
    state = rec.state
    for key, value in state.items():
        if key not in TORCH_MODULE_INTERNALS:
            setattr(obj, key, finish(value))
    for key, child in children.items():
        setattr(obj, key, child)
    _set_tensors(obj, state, finish)
    return obj


def _set_tensors(obj: jt.Module, state: Dict[str, Any], finish, built: bool = False) -> None:
    """The recorded parameters and buffers become the module's own Vars: the very objects the
    file shares (``decoder.weight = encoder.weight`` stays one Var), not copies.  In a layer the
    runtime ``built`` only a Var attribute of the same name and shape is replaced (its forward
    reads that attribute); the final load copies the values of the others."""
    skip = state.get("_non_persistent_buffers_set") or set()
    for group in ("_parameters", "_buffers"):
        for key, value in (state.get(group) or {}).items():
            value = finish(value)
            old = obj.__dict__.get(key)
            if built and not (isinstance(old, jt.Var) and isinstance(value, jt.Var)
                              and tuple(old.shape) == tuple(value.shape)):
                continue
            if group == "_parameters" and hasattr(obj, "register_parameter"):
                obj.register_parameter(key, value)
            elif group == "_buffers" and hasattr(obj, "register_buffer"):
                obj.register_buffer(key, value, persistent=key not in skip)
            elif group == "_parameters":  # a bare jittor.Module: a Var attribute is a parameter
                object.__setattr__(obj, key, value)


def _library_base(cls: type) -> type:
    """The first class of ``cls``'s MRO defined by jtport's runtime or Jittor, not the program."""
    for base in cls.__mro__:
        if base.__module__.split(".")[0] in ("shims", "jittor"):
            return base
    return jt.Module

