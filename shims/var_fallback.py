"""torch Tensor members reached at run time on a Jittor Var the converter could not see.

The converter rewrites a tensor-method call it can see (``x.new_zeros(2, 3)`` ->
``shims.new_zeros(x, 2, 3)``).  Code it cannot see that way (a receiver fetched with
``getattr``, an element of a container passed to third-party code, a library left unconverted)
reaches the Var's own attributes at run time.  For a member the Var lacks, :func:`tensor_member`
gives what the mapping table's ``torch.Tensor.<name>`` row says: the shim function bound to the
Var, with the row's argument policy applied to each call (as :mod:`shims.namespace` does for
modules), or the attribute's value.  A member with no converted row is left to the caller,
which raises the named :class:`shims.UnportedAttributeError`.
"""
from __future__ import annotations

import functools
from typing import Any, Optional

from .namespace import _apply_policy, _table, target_object

__all__ = ["tensor_member"]

_MISSING = object()


@functools.lru_cache(maxsize=None)
def _row(name: str):
    """The converted ``torch.Tensor.<name>`` row (direct or shim, with a target), or None."""
    entry = _table().get(f"torch.Tensor.{name}")
    if entry is None or entry.status not in ("direct", "shim") or not entry.target:
        return None
    if entry.target.startswith(".") and entry.target[1:] == name:
        return None  # the row says "the Var's own member", which the Var lacks
    return entry


def _bound(entry, var, func) -> Any:
    """``func`` (taking the Var first) as a method of ``var``, the row's policy on each call."""
    def method(*args, **kwargs):
        args, kwargs, then = _apply_policy(entry, args, kwargs)
        result = func(var, *args, **kwargs)
        for name, value in then:
            result = result.cast(value) if name == "dtype" else getattr(result, name)(value)
        return result
    method.__name__ = entry.short_name
    method.__doc__ = f"torch.Tensor.{entry.short_name} under Jittor ({entry.target})"
    return method


def tensor_member(var, name: str, default: Any = _MISSING) -> Optional[Any]:
    """The torch member ``name`` of ``var`` by the mapping table, or ``default`` (None) when the
    table has no converted row for it."""
    entry = _row(name)
    if entry is None:
        return None if default is _MISSING else default
    if entry.target.startswith("."):
        func = lambda v, *a, **k: getattr(v, entry.target[1:])(*a, **k)  # noqa: E731
        if entry.kind == "attribute":
            return getattr(var, entry.target[1:])
    else:
        func = target_object(entry.target)
        if entry.kind == "attribute":
            return func(var)
    return _bound(entry, var, func)
