"""torch modules used as values: ``getattr(F, name)``, ``vars(torch)[name]``,
``torch.nn.__dict__[name]``, ``activation_module=F``.

The converter cannot see which API such code reaches, and Jittor's namesakes are not torch's
(``jittor.nn.leaky_relu`` takes ``scale``, not ``negative_slope``; Jittor's ``var`` is biased).
So a torch module used as a value becomes ``shims.namespace("torch.nn.functional")``, whose
attributes are looked up in jtport's mapping table when they are read: a converted row gives
its Jittor/shims target (with the row's argument policy applied to each call: renamed,
dropped, rejected arguments, as the converter applies it to written calls), a row jtport leaves
unconverted gives a :func:`shims.unported` placeholder that raises, naming the API and the
row's reason, when it is used, and a name torch lacks raises ``AttributeError``.

The table is read from jtport's ``porter.mapping`` (shipped in the same package) on the first
lookup, about a third of a second; nothing else in a converted program reads it.
"""
from __future__ import annotations

import ast
import functools
import importlib
from typing import Any, Dict, Iterator, Mapping

from porter.mapping import SPREAD, default_table

from .unported import UnportedError, unported

__all__ = ["namespace", "TorchNamespace"]


@functools.lru_cache(maxsize=1)
def _table():
    return default_table()


@functools.lru_cache(maxsize=None)
def _submodules() -> frozenset:
    """Every dotted prefix of a table row's API: the torch modules the table knows."""
    out = set()
    for api in _table().entries:
        parts = api.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(out)


def _known_names(module: str):
    """What torch's ``module`` has (``torch_members.json``, star-import lists), or None."""
    table = _table()
    if module in table.members:
        return table.members[module]
    if module in table.star:
        return frozenset(table.star[module])
    return None


def target_object(target: str) -> Any:
    """The object a table target names (``jittor.nn.Conv2d``, ``shims.nn.leaky_relu``)."""
    parts = target.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def _allowed(value, allow) -> bool:
    for text in allow:
        try:
            literal = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            continue
        if type(literal) is type(value) and literal == value:
            return True
    return False


#: torch's factory keywords: where the target lacks one, ``device`` is dropped (placement is
#: global in Jittor) and a layer's ``dtype`` casts its parameters once made (``with_dtype``)
_FACTORY = ("device", "dtype")


def _apply_policy(entry, args, kwargs):
    """The row's argument policy on a call's values: (args, kwargs, then-calls).  A factory
    keyword (``device``/``dtype``) the target lacks: ``None`` or a device is dropped, a dtype
    becomes a ``("dtype", value)`` then-call the caller applies to the result."""
    out_args, out_kwargs, then = [], {}, []
    shifted = False
    named = [(entry.params[i] if i < len(entry.params) else None, v, True) for i, v in enumerate(args)]
    named += [(k, v, False) for k, v in kwargs.items()]
    for name, value, positional in named:
        if name in _FACTORY and (value is None or entry.lacks_factory(name)):
            if name == "dtype" and value is not None:
                then.append(("dtype", value))
            shifted = shifted or positional
        elif name in entry.reject or name in entry.then or name in entry.drop:
            if name in entry.reject and not _allowed(value, entry.reject[name].allow):
                raise UnportedError(f"{entry.api}: argument {name}={value!r}: {entry.reject[name].reason}")
            if name in entry.then and value is not False:
                then.append((entry.then[name][1:], value))
            shifted = shifted or positional
        elif positional and (not shifted or name is None):
            out_args.append(value)
        elif entry.rename.get(name) == SPREAD:  # torch.zeros(size=s): Jittor's zeros(*shape)
            out_args[:0] = list(value)
        else:
            out_kwargs[entry.rename.get(name, name)] = value
    return out_args, out_kwargs, then


def _with_policy(entry, obj):
    """``obj`` called with the row's argument policy applied (a subclass for a class)."""
    if not entry.has_policy:
        return obj

    def call(*args, **kwargs):
        args, kwargs, then = _apply_policy(entry, args, kwargs)
        result = obj(*args, **kwargs)
        for method, value in then:
            result = result.cast(value) if method == "dtype" else getattr(result, method)(value)
        return result

    if isinstance(obj, type):
        def __init__(self, *args, **kwargs):
            args, kwargs, then = _apply_policy(entry, args, kwargs)
            obj.__init__(self, *args, **kwargs)
            dtype = next((v for m, v in then if m == "dtype"), None)
            if dtype is not None:
                # lazy: shims.nn imports this module (its classes as torch values) through shims' __init__
                from .nn import with_dtype
                with_dtype(self, dtype)
        # isinstance(m, nn.Linear) with the value (minGPT's whitelist of decayed modules) holds
        # for the layers the converted calls build: the target class's own instances
        meta = type(f"{obj.__name__}Policy", (type(obj),), {
            "__instancecheck__": lambda cls, inst: isinstance(inst, obj),
            "__subclasscheck__": lambda cls, sub: issubclass(sub, obj)})
        return meta(obj.__name__, (obj,), {"__init__": __init__, "__module__": obj.__module__,
                                           "__doc__": obj.__doc__})
    return functools.wraps(obj)(call)


@functools.lru_cache(maxsize=None)
def resolve(api: str) -> Any:
    """What the torch API ``api`` is under Jittor, by jtport's mapping table."""
    entry = _table().get(api)
    if entry is None:
        if api in _submodules():
            return TorchNamespace(api)
        module, _, name = api.rpartition(".")
        known = _known_names(module)
        if known is not None and name not in known:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return unported(api, "not in jtport's mapping table: port it by hand")
    if entry.status not in ("direct", "shim") or not entry.target or entry.target.startswith("."):
        return unported(api, entry.reason or f"{entry.status} by a rule of the converter: spell the API out")
    return _with_policy(entry, target_object(entry.target))


class _Members(Mapping):
    """``vars(namespace)`` / ``namespace.__dict__``: the names resolved on lookup."""

    def __init__(self, module: str):
        self.module = module

    def __getitem__(self, name: str) -> Any:
        try:
            return resolve(f"{self.module}.{name}")
        except AttributeError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(_names(self.module))

    def __len__(self) -> int:
        return len(_names(self.module))


def _names(module: str) -> list:
    known = _known_names(module)
    if known is not None:
        return sorted(known)
    prefix = module + "."
    return sorted({api[len(prefix):].split(".", 1)[0] for api in _table().entries if api.startswith(prefix)})


class TorchNamespace:
    """A torch module as a value; its attributes resolve through the mapping table."""

    __slots__ = ("_jtport_module",)

    def __init__(self, module: str):
        object.__setattr__(self, "_jtport_module", module)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return resolve(f"{self._jtport_module}.{name}")

    @property
    def __dict__(self) -> Mapping[str, Any]:  # type: ignore[override]
        return _Members(self._jtport_module)

    def __dir__(self) -> list:
        return _names(self._jtport_module)

    def __repr__(self) -> str:
        return f"<torch module {self._jtport_module}, resolved by jtport's mapping table>"


_NAMESPACES: Dict[str, TorchNamespace] = {}


def namespace(module: str) -> TorchNamespace:
    """The value standing for torch module ``module`` (``"torch.nn.functional"``)."""
    found = _NAMESPACES.get(module)
    if found is None:
        found = _NAMESPACES[module] = TorchNamespace(module)
    return found
