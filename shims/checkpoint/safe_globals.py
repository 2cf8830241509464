"""``torch.serialization.add_safe_globals`` / ``safe_globals`` / ``get_safe_globals`` /
``clear_safe_globals``: the globals a ``weights_only`` load may meet beyond tensors and
containers.  In the port such a global becomes an inert record of its pickled state (as
``weights_only=False`` does for every global): nothing named in the file is imported or called.
"""
from __future__ import annotations

import contextlib
from typing import Any, List, Set, Tuple

__all__ = ["add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals", "allowed"]

_ALLOWED: List[Any] = []


def _keys(obj) -> Set[Tuple[str, str]]:
    """The (module, name) pairs a pickle may spell ``obj`` with: ``(cls, "a.b.Name")`` as torch
    takes it, or the object's own module and name (``__main__`` too: a script's own class)."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], str):
        module, _, name = obj[1].rpartition(".")
        return {(module, name)}
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", None))
    if name is None:
        return set()
    return {(getattr(obj, "__module__", ""), name), ("__main__", name)}


def add_safe_globals(safe_globals: List[Any]) -> None:
    """``torch.serialization.add_safe_globals``: allow these globals in every later load."""
    _ALLOWED.extend(safe_globals)


def get_safe_globals() -> List[Any]:
    """``torch.serialization.get_safe_globals``."""
    return list(_ALLOWED)


def clear_safe_globals() -> None:
    """``torch.serialization.clear_safe_globals``."""
    _ALLOWED.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: List[Any]):
    """``torch.serialization.safe_globals``: allow these globals inside the ``with`` block."""
    before = len(_ALLOWED)
    _ALLOWED.extend(safe_globals)
    try:
        yield
    finally:
        del _ALLOWED[before:]


def allowed(module: str, name: str) -> bool:
    """Whether a load may turn global ``module.name`` into an inert record."""
    return any((module, name) in _keys(obj) for obj in _ALLOWED)
