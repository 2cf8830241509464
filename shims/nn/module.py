"""``shims.nn.Module`` and the torch containers (``Sequential``, ``ModuleList``, ``ModuleDict``).

Jittor 1.3.11 treats every ``jt.Var`` attribute as a trainable parameter (buffers included),
runs a module's forward under ``no_grad`` for ``requires_grad_(False)``, stops all parameter
gradients in ``eval()``, returns a list for ``seq[1:3]`` and has no ``ModuleDict``.  These
classes give torch's behaviour on top of ``jittor.Module``.
"""
from __future__ import annotations

import collections
import functools
import itertools
import threading
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

import jittor as jt
import numpy as np

from ..autograd import zero_grads
from ..checkpoint.state_dict import load_state_dict
from .param_flag import is_parameter

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "set_tensor_attr", "RemovableHandle", "with_dtype"]


_FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16")


def _cast_floats(module, dtype):
    """Floating parameters and buffers of ``module`` and its children to ``dtype``, in place."""
    for mod in module.modules():
        for _k, v in list(mod.__dict__.items()):
            if isinstance(v, jt.Var) and str(v.dtype) in _FLOAT_DTYPES:
                trainable = not v.is_stop_grad()
                v.assign(v.cast(dtype))
                if trainable:
                    v.start_grad()
        attrs = mod.__dict__.get("_shim_tensor_attrs", {})
        for k, v in list(attrs.items()):
            if isinstance(v, jt.Var) and str(v.dtype) in _FLOAT_DTYPES:
                attrs[k] = v.cast(dtype)
    return module


def with_dtype(module, dtype):
    """torch layers' ``dtype=`` factory argument, which Jittor's layers lack: ``module`` with
    its floating parameters and buffers made ``dtype`` (``None``: as made, torch's default);
    the converter writes ``nn.Linear(3, 2, dtype=d)`` as ``shims.nn.with_dtype(nn.Linear(3, 2), d)``."""
    return module if dtype is None else _cast_floats(module, dtype)


#: per thread, the shims modules whose forward (``"active"``) or ``__init__`` (``"building"``)
#: is running (id -> how many times).  A Var assigned to a new attribute of a module while its
#: forward runs, or once its ``__init__`` is done, is a plain tensor attribute (torch: ``self.h =
#: out`` in ``forward``, ``self.loss = ...`` in a trainer's ``update()``) unless it was made by
#: ``shims.nn.parameter`` (torch's ``nn.Parameter``); during ``__init__`` every Var attribute is
#: state, as Jittor's layers expect.  Modules built meanwhile (a layer created lazily in forward)
#: keep their parameters.
_FORWARD = threading.local()
_HOOK_IDS = itertools.count()
#: Vars made by ``shims.nn.Buffer(t, persistent)``: id -> (Var, persistent) until assigned
_BUFFERS: Dict[int, tuple] = {}


def _counts(slot: str = "active") -> Dict[int, int]:
    counts = getattr(_FORWARD, slot, None)
    if counts is None:
        counts = {}
        setattr(_FORWARD, slot, counts)
    return counts


class _Inside:
    """Counts ``obj`` as inside ``slot`` (a forward or an ``__init__``) for a ``with`` block."""

    __slots__ = ("counts", "key")

    def __init__(self, slot: str, obj):
        self.counts, self.key = _counts(slot), id(obj)

    def __enter__(self):
        self.counts[self.key] = self.counts.get(self.key, 0) + 1

    def __exit__(self, *exc) -> None:
        self.counts[self.key] -= 1
        if not self.counts[self.key]:
            del self.counts[self.key]


def _frozen_call(module, args, kw) -> bool:
    """Whether torch records no graph for this outermost call although gradients are on: the
    module has parameters, none of them and no tensor argument requires a gradient (a frozen
    copy sampling, StyleGAN2-ADA's ``G_ema``).  A module without parameters (an activation, a
    loss) is left alone: Jittor code differentiates through it to Vars it never marked.  Jittor
    keeps an executed Var's graph while its inputs are not stop-grad, which a fresh ``jt.randn``
    is not; run without gradients, the graph goes as it does in torch (512 grid batches through
    ``G_ema`` had grown to 21 GB)."""
    if jt.flags.no_grad or _counts("active"):
        return False
    frozen = False  # a network with weights, none trainable: not a layer of no weights
    for p in module.parameters():
        if p.requires_grad:
            return False
        frozen = True
    # the arguments last: a computed Var's requires_grad is a backward search over every leaf
    if not frozen or _may_need_grad(args) or _may_need_grad(kw):
        return False
    # a tensor attribute assigned from another network keeps its graph (set_tensor_attr): Jittor
    # code may differentiate through it to a Var that torch would not call a leaf
    return not any(isinstance(v, jt.Var) and not v.is_stop_grad()
                   for m in module.modules() for v in m.__dict__.get("_shim_tensor_attrs", {}).values())


def _may_need_grad(value) -> bool:
    """Whether ``value`` (an argument of a module call) holds a Var that requires a gradient,
    looking into lists, tuples and dicts; any other object might hide one, so it counts too."""
    if isinstance(value, jt.Var):
        return value.requires_grad
    if isinstance(value, (list, tuple)):
        return any(_may_need_grad(v) for v in value)
    if isinstance(value, dict):
        return any(_may_need_grad(v) for v in value.values())
    return not (value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray)))


def _building_init(init):
    """``init`` (a module class's ``__init__``) marking its instance as under construction."""
    if getattr(init, "_shim_builds", False):
        return init

    @functools.wraps(init)
    def __init__(self, *args, **kw):
        with _Inside("building", self):
            init(self, *args, **kw)

    __init__._shim_builds = True
    return __init__


def _plain_tensor(module, value) -> bool:
    """Whether a Var assigned to a new attribute of ``module`` now is a plain attribute (torch:
    not an ``nn.Parameter``, assigned in forward or after ``__init__``), not state."""
    if is_parameter(value):
        return False
    return id(module) in _counts("active") or id(module) not in _counts("building")


class RemovableHandle:
    """torch's ``torch.utils.hooks.RemovableHandle``: ``remove()`` (also as a context manager)."""

    def __init__(self, hooks: Dict[int, object]):
        self._hooks = hooks
        self.id = next(_HOOK_IDS)

    def remove(self) -> None:
        """Unregister the hook."""
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _frozen(value: jt.Var, persistent: bool) -> jt.Var:
    """A buffer Var: cut from the graph and gradient-stopped (Jittor's ``detach()`` alone leaves
    the copy trainable, so optimizers would update it)."""
    value = value.detach()
    value.stop_grad()
    value.persistent = persistent
    return value


class IterList(list):
    """A list that is also an iterator over itself: torch's ``parameters()``, ``children()``,
    ``modules()``, ... return generators, so user code writes ``next(model.parameters())``;
    Jittor's return lists (``TypeError: 'list' object is not an iterator``).  Still a list, so
    Jittor's own callers (optimizers, ``state_dict``) index and reuse it as before."""

    __slots__ = ("_next",)

    def __next__(self):
        pos = getattr(self, "_next", 0)
        if pos >= len(self):
            raise StopIteration
        self._next = pos + 1
        return self[pos]


#: the traversal methods that return generators in torch
TRAVERSALS = ("parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children",
              "modules", "named_modules")


def _iterable_result(method):
    """``method`` returning an :class:`IterList` of what it returned."""
    if getattr(method, "_returns_iterlist", False):
        return method

    def wrapper(self, *args, **kw):
        return IterList(method(self, *args, **kw))

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = method.__name__, method.__qualname__, method.__doc__
    wrapper._returns_iterlist = True
    return wrapper


def _buffer_names(module) -> frozenset:
    return frozenset(module.__dict__.get("_shim_buffers", ()))


class Module(jt.Module):
    """``torch.nn.Module`` semantics on a ``jittor.Module``.

    Torch behaviour reproduced:
    * ``register_buffer(name, t, persistent=True)``: the buffer is in ``state_dict`` under the
      torch key (unless ``persistent=False``), in ``buffers()``, never in ``parameters()`` and
      never trained (stored gradient-stopped; re-assigning the attribute keeps it a buffer).
    * ``register_parameter(name, p)``; ``parameters()``/``named_parameters()`` exclude buffers.
    * ``requires_grad_(flag)`` sets each parameter's flag (Jittor's runs forward under no_grad).
    * ``train(mode=True)``/``eval()`` only switch the training flag; gradients keep flowing.
    * ``load_state_dict(sd, strict=True)`` raises on missing/unexpected/mis-shaped keys and
      returns ``(missing_keys, unexpected_keys)``.
    * ``set_tensor_attr(name, t)``: a plain tensor attribute (torch: ``self.w = tensor``) that is
      neither a parameter nor in ``state_dict`` and keeps its gradient graph; a Var assigned to a
      new attribute while a forward runs (``self.hidden = h`` in ``forward``) or after
      ``__init__`` (``self.loss_gen = ...`` in a trainer's ``update()``) is one too, unless
      ``shims.nn.parameter`` made it (torch's ``nn.Parameter``): only Parameters and registered
      buffers are state in torch, where Jittor makes every Var attribute a trainable parameter.
    * forward hooks with torch's signatures and ``RemovableHandle``s
      (``register_forward_pre_hook``, ``register_forward_hook``, ``with_kwargs``, ``prepend``);
    * ``double()``/``float()``/``half()``/``bfloat16()`` cast floating parameters and buffers;
      ``get_parameter``/``get_buffer``/``get_submodule`` by dotted name.
    """

    def __init__(self, *args, **kw):
        super().__init__()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "__init__" in cls.__dict__:
            cls.__init__ = _building_init(cls.__dict__["__init__"])

    # -- torch spelling of execute -------------------------------------------------------
    def execute(self, *args, **kw):
        """Run ``forward`` when the subclass defines it (torch's entry point), like torch."""
        forward = getattr(type(self), "forward", None)
        if forward is None or getattr(forward, "execute_alias", False):  # jt.Module.forward: shims.nn.forward
            raise NotImplementedError(f"{type(self).__name__} defines neither execute nor forward")
        return forward(self, *args, **kw)

    def __call__(self, *args, **kw):
        """torch's ``Module.__call__``: forward pre-hooks, ``execute``, forward hooks."""
        d = self.__dict__
        pre, post = d.get("_shim_pre_hooks"), d.get("_shim_post_hooks")
        if pre:
            for hook, with_kwargs in list(pre.values()):
                if with_kwargs:
                    res = hook(self, args, kw)
                    if res is not None:
                        if not (isinstance(res, tuple) and len(res) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {res}.")
                        args, kw = res
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
        if _frozen_call(self, args, kw):
            with _Inside("active", self), jt.no_grad():
                out = self.execute(*args, **kw)
        else:
            with _Inside("active", self):
                out = self.execute(*args, **kw)
        if post:
            for hook, with_kwargs in list(post.values()):
                res = hook(self, args, kw, out) if with_kwargs else hook(self, args, out)
                if res is not None:
                    out = res
        return out

    # -- hooks ---------------------------------------------------------------------------
    def _add_hook(self, slot: str, hook, with_kwargs: bool, prepend: bool) -> RemovableHandle:
        hooks = self.__dict__.setdefault(slot, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = (hook, with_kwargs)
        if prepend:
            items = list(hooks.items())
            hooks.clear()
            hooks.update([items[-1], *items[:-1]])
        return handle

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """torch's ``register_forward_pre_hook``: ``hook(module, args)`` (or ``hook(module, args,
        kwargs)`` with ``with_kwargs``) runs before forward and may return new inputs."""
        return self._add_hook("_shim_pre_hooks", hook, with_kwargs, prepend)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """torch's ``register_forward_hook``: ``hook(module, args, output)`` (or ``hook(module,
        args, kwargs, output)``) runs after forward and may return a new output."""
        return self._add_hook("_shim_post_hooks", hook, with_kwargs, prepend)

    # -- dtype casts ---------------------------------------------------------------------
    def _cast_floats(self, dtype):
        return _cast_floats(self, dtype)

    def double(self):
        """torch's ``double()``: floating parameters and buffers to float64 (in place)."""
        return self._cast_floats(jt.float64)

    def float(self):
        """torch's ``float()``: floating parameters and buffers to float32 (in place)."""
        return self._cast_floats(jt.float32)

    def half(self):
        """torch's ``half()``: floating parameters and buffers to float16 (in place)."""
        return self._cast_floats(jt.float16)

    def bfloat16(self):
        """torch's ``bfloat16()``: floating parameters and buffers to bfloat16 (in place)."""
        return self._cast_floats(jt.bfloat16)

    def to(self, *args, **kwargs):
        """torch's ``Module.to(device, dtype, non_blocking)``, in place: a device (``'cuda'``, an
        index, None) changes nothing, Jittor places every Var by one global flag; a dtype (or a
        tensor's) casts the floating parameters and buffers, as torch does.  The converter drops
        the placement calls it can see; this serves the modules it cannot (``load(f)['G'].to(d)``)."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, jt.Var):
                dtype = a.dtype
            elif str(a) in _FLOAT_DTYPES or getattr(a, "__name__", None) in _FLOAT_DTYPES:
                dtype = a
        return self if dtype is None else self._cast_floats(dtype)

    # -- lookup by name ------------------------------------------------------------------
    def get_submodule(self, target: str) -> jt.Module:
        """torch's ``get_submodule('a.b')``."""
        mod = self
        for item in (target.split(".") if target else []):
            sub = mod.__dict__.get(item)
            if not isinstance(sub, jt.Module):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`" if sub is None
                                     else f"`{item}` is not an nn.Module")
            mod = sub
        return mod

    def get_parameter(self, target: str) -> jt.Var:
        """torch's ``get_parameter('a.b.weight')``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        value = mod.__dict__.get(name)
        if not isinstance(value, jt.Var):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        if name in _buffer_names(mod):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value

    def get_buffer(self, target: str) -> jt.Var:
        """torch's ``get_buffer('a.b.running_mean')``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in _buffer_names(mod):
            raise AttributeError(f"`{name}` is not a buffer")
        return mod.__dict__[name]

    # -- attributes ----------------------------------------------------------------------
    def __setattr__(self, key, value):
        d = self.__dict__
        marked = _BUFFERS.pop(id(value), None) if isinstance(value, jt.Var) else None
        if marked is not None and marked[0] is value:  # self.x = nn.Buffer(t): torch registers a buffer
            self.register_buffer(key, value, persistent=marked[1])
            return
        if (isinstance(value, jt.Var) and not key.startswith("_") and not isinstance(d.get(key), jt.Var)
                and key not in _buffer_names(self) and _plain_tensor(self, value)):
            # torch: a tensor that is no Parameter, assigned outside __init__, is no state
            if key in d:
                object.__delattr__(self, key)
            d.setdefault("_shim_tensor_attrs", {})[key] = value
            return
        if key in d.get("_shim_tensor_attrs", {}):
            if isinstance(value, jt.Var) or value is None:
                d["_shim_tensor_attrs"][key] = value
                return
            del d["_shim_tensor_attrs"][key]
        if key in _buffer_names(self) and isinstance(value, jt.Var):
            persistent = getattr(d.get(key), "persistent", True)
            value = _frozen(value, persistent)
        object.__setattr__(self, key, value)

    def __getattr__(self, key):
        attrs = self.__dict__.get("_shim_tensor_attrs")
        if attrs is not None and key in attrs:
            return attrs[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")

    def __delattr__(self, key):
        attrs = self.__dict__.get("_shim_tensor_attrs", {})
        if key in attrs:
            del attrs[key]
            return
        self.__dict__.get("_shim_buffers", set()).discard(key)
        object.__delattr__(self, key)

    def set_tensor_attr(self, name: str, value: Optional[jt.Var]) -> None:
        """Make ``name`` a non-parameter tensor attribute (torch: ``self.name = tensor``).

        It is not in ``parameters()`` or ``state_dict()``, the optimizer never sees it, and its
        gradient graph is kept (HiSD/MCCNet's AdaIN weight assigned from another network).
        """
        if name in self.__dict__:
            object.__delattr__(self, name)
        self.__dict__.setdefault("_shim_tensor_attrs", {})[name] = value

    def register_buffer(self, name: str, tensor: Optional[jt.Var], persistent: bool = True):
        """``torch.nn.Module.register_buffer``: a state tensor that is saved but never trained."""
        if not isinstance(name, str) or "." in name or not name:
            raise KeyError(f"register_buffer: invalid buffer name {name!r}")
        if tensor is not None and not isinstance(tensor, jt.Var):
            raise TypeError(f"register_buffer: cannot assign {type(tensor).__name__} to buffer "
                            f"'{name}' (jt.Var or None required)")
        self.__dict__.setdefault("_shim_buffers", set()).add(name)
        if tensor is None:
            object.__setattr__(self, name, None)
            return None
        value = _frozen(tensor, persistent)
        object.__setattr__(self, name, value)
        return value

    def register_parameter(self, name: str, param: Optional[jt.Var]) -> None:
        """``torch.nn.Module.register_parameter``: a trainable Var attribute (or None)."""
        if param is not None and not isinstance(param, jt.Var):
            raise TypeError(f"register_parameter: '{name}' must be a jt.Var or None, "
                            f"got {type(param).__name__}")
        self.__dict__.get("_shim_buffers", set()).discard(name)
        if param is not None and param.is_stop_grad():
            param.start_grad()
        object.__setattr__(self, name, param)

    # -- traversal -----------------------------------------------------------------------
    def _named_vars(self, prefix: str = "", recurse: bool = True, seen=None):
        """Yield (qualified name, Var, owner, is_buffer) for every Var attribute, torch order."""
        seen = set() if seen is None else seen
        for name, mod in (self.named_modules() if recurse else [("", self)]):
            bufs = _buffer_names(mod)
            for k, v in mod.__dict__.items():
                if not isinstance(k, str) or k.startswith("_") or not isinstance(v, jt.Var):
                    continue
                if id(v) in seen:
                    continue
                seen.add(id(v))
                full = f"{prefix}{name}.{k}" if name else prefix + k
                yield full, v, mod, k in bufs

    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = True, to=None):
        """torch's ``state_dict`` order: per module its parameters, then its persistent buffers,
        then its children; keys as torch's.  Values are the module's Vars (``to='numpy'`` for
        copies as numpy arrays)."""
        out = destination if destination is not None else collections.OrderedDict()
        for name, mod in self.named_modules():
            bufs = _buffer_names(mod)
            own = [(k, v) for k, v in mod.__dict__.items()
                   if isinstance(k, str) and not k.startswith("_") and isinstance(v, jt.Var)]
            for k, v in [kv for kv in own if kv[0] not in bufs] + [kv for kv in own if kv[0] in bufs]:
                if not getattr(v, "persistent", True):
                    continue
                key = f"{prefix}{name}.{k}" if name else prefix + k
                if key not in out:
                    out[key] = v.numpy() if to == "numpy" else v
        return out

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> List[Tuple[str, jt.Var]]:
        """torch's ``named_parameters``: (name, Var) pairs, buffers excluded."""
        return [(n, v) for n, v, _, is_buf in self._named_vars(prefix, recurse) if not is_buf]

    def parameters(self, recurse: bool = True) -> List[jt.Var]:
        """torch's ``parameters``: trainable Vars, buffers excluded (a list, as Jittor returns)."""
        return [v for _, v in self.named_parameters(recurse=recurse)]

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> List[Tuple[str, jt.Var]]:
        """torch's ``named_buffers``: (name, Var) for every registered buffer."""
        return [(n, v) for n, v, _, is_buf in self._named_vars(prefix, recurse) if is_buf]

    def buffers(self, recurse: bool = True) -> List[jt.Var]:
        """torch's ``buffers``."""
        return [v for _, v in self.named_buffers(recurse=recurse)]

    def named_children(self) -> List[Tuple[str, jt.Module]]:
        """torch's ``named_children``: direct submodules in registration order."""
        return [(k, v) for k, v in self.__dict__.items() if isinstance(v, jt.Module)]

    def children(self) -> List[jt.Module]:
        """torch's ``children``."""
        return [m for _, m in self.named_children()]

    # -- gradients and modes -------------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True):
        """torch's ``requires_grad_``: set every parameter's flag (buffers stay frozen)."""
        for p in self.parameters():
            p.requires_grad = bool(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's ``zero_grad``: every parameter's ``.grad`` becomes None (or zeros, in place)."""
        zero_grads(self.parameters(), set_to_none)

    def train(self, mode: bool = True):
        """torch's ``train(mode)``: switch the training flag of every submodule, nothing else."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode): mode is expected to be a bool, got {type(mode).__name__}")
        for _, m in self.named_modules():
            m.is_train = mode
        return self

    def eval(self):
        """torch's ``eval()`` = ``train(False)``; parameters keep their gradients (unlike Jittor)."""
        return self.train(False)

    def apply(self, fn):
        """torch's ``apply``: call ``fn`` on every submodule (children first) and return self."""
        for m in reversed(self.modules()):
            fn(m)
        return self

    def load_state_dict(self, state_dict, strict: bool = True):
        """torch's ``load_state_dict``; see :func:`shims.checkpoint.load_state_dict`."""
        return load_state_dict(self, state_dict, strict=strict)


Module.__init__ = _building_init(Module.__init__)


# -- torch's forward hooks on Jittor's own modules (nn.Linear, nn.Conv2d, ...) -----------------
# Jittor keeps one pre-hook (``register_pre_forward_hook``, another return convention) and one
# forward hook per module and returns no handle; torch code hooks ``nn.Conv2d`` layers to read
# features.  These give every ``jittor.Module`` torch's two methods, with the hooks kept in the
# same per-instance dicts as shims.nn.Module's, run by Jittor's own hook slots.

def _run_pre_hooks(mod, args, kw=None):
    kw = {} if kw is None else kw
    for hook, with_kwargs in list(mod.__dict__.get("_shim_pre_hooks", {}).values()):
        if with_kwargs:
            res = hook(mod, args, kw)
            if res is not None:
                args, kw = res
        else:
            res = hook(mod, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
    return args, kw


def _run_post_hooks(mod, args, *rest):
    out, kw = rest[0], (rest[1] if len(rest) > 1 else {})
    for hook, with_kwargs in list(mod.__dict__.get("_shim_post_hooks", {}).values()):
        res = hook(mod, args, kw, out) if with_kwargs else hook(mod, args, out)
        if res is not None:
            out = res
    return out


def _jt_register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    """torch's ``Module.register_forward_pre_hook`` on a Jittor module (returns a handle)."""
    handle = Module._add_hook(self, "_shim_pre_hooks", hook, with_kwargs, prepend)
    self.__fhook2__ = _run_pre_hooks
    self._place_hooker()
    return handle


def _jt_register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
    """torch's ``Module.register_forward_hook`` on a Jittor module (several hooks, a handle)."""
    handle = Module._add_hook(self, "_shim_post_hooks", hook, with_kwargs, prepend)
    self.__fhook__ = _run_post_hooks
    self._place_hooker()
    return handle


jt.Module.register_forward_pre_hook = _jt_register_forward_pre_hook
jt.Module.register_forward_hook = _jt_register_forward_hook


def set_tensor_attr(module: jt.Module, name: str, value: Optional[jt.Var]) -> None:
    """Give any Jittor module a non-parameter tensor attribute (see ``Module.set_tensor_attr``)."""
    if isinstance(module, Module):
        module.set_tensor_attr(name, value)
        return
    raise TypeError(f"set_tensor_attr: {type(module).__name__} is not a shims.nn.Module "
                    "(derive the class from shims.nn.Module)")


for _name in TRAVERSALS:  # torch's generators: next() works on Jittor's layers and on these
    for _cls in (jt.Module, Module):
        if _name in _cls.__dict__:
            setattr(_cls, _name, _iterable_result(_cls.__dict__[_name]))


def _plain_lists(fn):
    """``fn``, a Jittor entry point taking lists of Vars, also taking :class:`IterList`: Jittor's C++
    binding accepts exact lists only, so ``jt.grad(loss, model.parameters())`` and
    ``jt.sync(model.parameters())`` (Jittor's own idioms) raised 'Wrong inputs arguments'."""
    if getattr(fn, "_takes_iterlist", False):
        return fn

    def wrapper(*args, **kw):
        args = [list(a) if type(a) is IterList else a for a in args]
        kw = {k: list(v) if type(v) is IterList else v for k, v in kw.items()}
        return fn(*args, **kw)

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapper._takes_iterlist = True
    return wrapper


for _name in ("grad", "sync", "fetch_sync"):
    setattr(jt, _name, _plain_lists(getattr(jt, _name)))


class _Container(Module):
    """Children kept in ``__dict__`` under their torch keys, so Jittor's traversal sees them."""

    def _child_items(self) -> List[Tuple[str, jt.Module]]:
        return [(k, v) for k, v in self.__dict__.items() if isinstance(v, jt.Module)]

    def _reset(self, items: Iterable[Tuple[str, jt.Module]]) -> None:
        for k, _ in self._child_items():
            object.__delattr__(self, k)
        for k, m in items:
            self._check(k, m)
            object.__setattr__(self, k, m)

    @staticmethod
    def _check(key, m) -> None:
        if not isinstance(m, jt.Module):
            raise TypeError(f"{key!r}: {type(m).__name__} is not a Module subclass")

    def __len__(self) -> int:
        return len(self._child_items())


class Sequential(_Container):
    """``torch.nn.Sequential``: slicing returns a Sequential; ``append``/``extend``/``insert``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            items = list(args[0].items())
        else:
            items = [(str(i), m) for i, m in enumerate(args)]
        self._reset(items)

    def _index(self, idx: int) -> int:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for {type(self).__name__} of length {n}")
        return idx % n

    def __getitem__(self, idx):
        items = self._child_items()
        if isinstance(idx, slice):
            return type(self)(collections.OrderedDict(items[idx]))
        return items[self._index(idx)][1]

    def __setitem__(self, idx: int, module) -> None:
        items = self._child_items()
        i = self._index(idx)
        items[i] = (items[i][0], module)
        self._reset(items)

    def __delitem__(self, idx) -> None:
        items = self._child_items()
        if isinstance(idx, slice):
            del items[idx]
        else:
            del items[self._index(idx)]
        # torch renumbers positional keys after deletion
        self._reset([(str(i), m) for i, (_, m) in enumerate(items)])

    def __iter__(self) -> Iterator[jt.Module]:
        return iter([m for _, m in self._child_items()])

    def append(self, module):
        """Add ``module`` at the end (key = its position)."""
        self._check(len(self), module)
        object.__setattr__(self, str(len(self)), module)
        return self

    def extend(self, modules):
        """Append each module of ``modules``."""
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module):
        """Insert ``module`` before ``index``; positional keys are renumbered like torch."""
        mods = [m for _, m in self._child_items()]
        n = len(mods)
        if not -n <= index <= n:
            raise IndexError(f"insert index {index} is out of range for length {n}")
        mods.insert(index % (n + 1) if index < 0 else index, module)
        self._reset([(str(i), m) for i, m in enumerate(mods)])
        return self

    def execute(self, x):
        for _, m in self._child_items():
            x = m(x)
        return x


class ModuleList(Sequential):
    """``torch.nn.ModuleList``: a list of modules (same keys as torch), not callable."""

    def __init__(self, modules=None):
        super().__init__(*(modules or []))

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def execute(self, *args, **kw):
        raise NotImplementedError("ModuleList is not callable; iterate over it")


class ModuleDict(_Container):
    """``torch.nn.ModuleDict``: an ordered dict of modules; keys appear in ``state_dict``."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str):
        for k, m in self._child_items():
            if k == key:
                return m
        raise KeyError(key)

    def __setitem__(self, key: str, module) -> None:
        if not isinstance(key, str) or not key or "." in key or key.startswith("_"):
            raise KeyError(f"ModuleDict: invalid key {key!r}")
        self._check(key, module)
        object.__setattr__(self, key, module)

    def __delitem__(self, key: str) -> None:
        self[key]
        object.__delattr__(self, key)

    def __contains__(self, key) -> bool:
        return any(k == key for k, _ in self._child_items())

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> List[str]:
        """Keys in insertion order."""
        return [k for k, _ in self._child_items()]

    def values(self) -> List[jt.Module]:
        """Modules in insertion order."""
        return [m for _, m in self._child_items()]

    def items(self) -> List[Tuple[str, jt.Module]]:
        """(key, module) pairs in insertion order."""
        return self._child_items()

    def update(self, modules) -> None:
        """Add entries from a mapping or an iterable of (key, module) pairs."""
        pairs = modules.items() if hasattr(modules, "items") else modules
        for k, m in pairs:
            self[k] = m

    def pop(self, key: str):
        """Remove ``key`` and return its module."""
        m = self[key]
        del self[key]
        return m

    def execute(self, *args, **kw):
        raise NotImplementedError("ModuleDict is not callable; index it by key")
