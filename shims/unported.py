"""Placeholders for the torch names a conversion left unported (``# jtport: JTnnn`` markers).

A converted file never imports torch: where a leftover still uses a torch name, the converter
binds that name to :func:`unported` instead (``torch = shims.unported("torch")``).  The module
then imports and every converted line runs; only a line that really uses the unported API
fails, when it runs, with :class:`UnportedError` naming the file, the line, the torch API, the
marker's code and reason, and what to do.  Attribute access on a placeholder gives a deeper
placeholder (``torch.jit.script`` is one), so nothing fails before the use itself.  A class may
derive from a placeholder (it imports; making an instance raises).
"""
from __future__ import annotations

import json
import linecache
import re
import sys
from typing import Optional, Tuple

from porter.mapping import TABLE_DIR

__all__ = ["unported", "Unported", "UnportedError", "UnportedAttributeError"]

_MARKER = re.compile(r"#\s*jtport:\s*(JT\d{3})\s+(.*)$")


class UnportedError(NotImplementedError):
    """A line using a torch API that jtport left unconverted was executed."""


class UnportedAttributeError(UnportedError, AttributeError):
    """A marked read of a torch tensor attribute or method the Jittor Var lacks (``x.grad_fn``,
    ``x.geqrf``); an AttributeError too, so ``hasattr``/``getattr(x, name, default)`` work."""


def _caller(depth: int) -> Tuple[str, int, Optional[str]]:
    """(file, line, the line's jtport marker) of the code that used the placeholder."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0, None
    path, line = frame.f_code.co_filename, frame.f_lineno
    found = None
    for n in range(line, line + 40):  # the marker sits on the statement's last line
        text = linecache.getline(path, n)
        m = _MARKER.search(text)
        if m:
            found = f"{m.group(1)} {m.group(2).strip()}"
            break
        if not text or (n > line and not text.rstrip().endswith((",", "(", "[", "{", "\\"))
                        and not linecache.getline(path, n + 1).startswith((" ", "\t", ")", "]", "}"))):
            break
    return path, line, found


class Unported:
    """A torch name (module, function, class, constant) that has no Jittor port here."""

    __slots__ = ("_jtport_name", "_jtport_reason")

    def __init__(self, name: str, reason: str = ""):
        object.__setattr__(self, "_jtport_name", name)
        object.__setattr__(self, "_jtport_reason", reason)

    def _fail(self, what: str, error: type = UnportedError):
        path, line, marker = _caller(3)
        name = self._jtport_name
        reason = marker or self._jtport_reason
        why = f" ({reason})" if reason else ""
        raise error(
            f"{path}:{line}: {what} {name}, which jtport could not convert{why}. Port this line "
            "by hand with Jittor's API or a shims function; jtport's docs/API_COVERAGE.md lists "
            "what each torch API becomes.")

    def __getattr__(self, attr: str) -> "Unported":
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Unported(f"{self._jtport_name}.{attr}")

    def __setattr__(self, attr, value):
        self._fail(f"setting .{attr} on")

    def __call__(self, *args, **kwargs):
        self._fail("calling")

    def __getitem__(self, key):
        self._fail("indexing")

    def __iter__(self):
        self._fail("iterating over")

    def __bool__(self) -> bool:
        # feature tests (``getattr(torch.compiler, "disable", None) or fallback``,
        # ``if hasattr(F, "x") and F.x:``) read an unported API as absent and take their fallback
        return False

    def __eq__(self, other) -> bool:
        return isinstance(other, Unported) and other._jtport_name == self._jtport_name

    def __hash__(self) -> int:
        return hash(("shims.unported", self._jtport_name))

    def __enter__(self):
        self._fail("entering")

    def __exit__(self, *exc):
        return False

    def __mro_entries__(self, bases):
        return (_unported_base(self._jtport_name, _caller(2)),)

    def __instancecheck__(self, obj) -> bool:
        # ``assert not isinstance(module, torch.jit.ScriptModule)``: nothing a port makes is an
        # instance of a torch class it did not port (a subclass of the placeholder cannot be made)
        return self.__subclasscheck__(type(obj))

    def __subclasscheck__(self, cls) -> bool:
        return any(getattr(base, "_jtport_name", None) == self._jtport_name for base in cls.__mro__)

    def __repr__(self) -> str:
        return f"<unported torch name {self._jtport_name}>"


def _unported_base(name: str, where: Tuple[str, int, Optional[str]]) -> type:
    """A base class standing for the unported class ``name`` of the class statement at
    ``where``: subclasses import; making an instance raises :class:`UnportedError` naming that
    statement and its marker."""
    path, line, marker = where

    def __init__(self, *args, **kwargs):
        why = f" ({marker})" if marker else ""
        raise UnportedError(
            f"{path}:{line}: {type(self).__name__} derives from {name}, which jtport could not "
            f"convert{why}; making an instance needs that base class ported by hand (or a "
            "Jittor/shims class in its place).")

    return type(name.rsplit(".", 1)[-1], (), {"__init__": __init__, "__module__": "shims.unported",
                                               "_jtport_name": name})


def unported(name: str, reason: str = "") -> Unported:
    """The placeholder a converted file binds to a torch name it still uses (``"torch"``,
    ``"torch.nn"``, ``"torch.utils.cpp_extension.load"``); ``reason`` is said when the line
    that uses it carries no marker (a name looked up at run time: ``getattr(F, name)``)."""
    return Unported(name, reason)


def _torch_tensor_members() -> frozenset:
    """``torch.Tensor``'s public members (``porter/mapping/torch_members.json``, written from torch)."""

    data = json.loads((TABLE_DIR / "torch_members.json").read_text(encoding="utf-8"))
    return frozenset(data.get("torch.Tensor", ())) | frozenset(data.get("tensor_attributes", ()))


def install_var_getattr(var_type) -> None:
    """A read of a torch tensor member the Var lacks that the mapping table converts
    (``x.new_zeros``, reached where the converter could not see a tensor) gives the row's shim
    (:mod:`shims.var_fallback`); one it does not (marked by the converter: ``x.grad_fn``,
    ``x.layout``, ``x.geqrf()``) raises :class:`UnportedAttributeError` naming the line and
    its marker, instead of a bare AttributeError.  Called only for names normal lookup did not
    find; torch's member list is read on the first such miss of a torch name."""
    members: list = []

    def __getattr__(self, name: str):
        if not name.startswith("_"):
            if not members:
                members.append(_torch_tensor_members())
            if name in members[0]:
                # lazy: var_fallback reaches the table through shims.namespace, which imports this module
                from .var_fallback import tensor_member  # the table's row, for receivers not converted

                found = tensor_member(self, name)
                if found is not None:
                    return found
                Unported(f"torch.Tensor.{name}")._fail("reading", UnportedAttributeError)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    var_type.__getattr__ = __getattr__
