"""``nn.Parameter(t, requires_grad=flag)``: the Var itself, marked as a parameter.

Torch keeps a tensor as module state only when it is an ``nn.Parameter`` (or a registered
buffer); :class:`shims.nn.Module` follows that rule for Vars assigned after a module's
``__init__``, so a Parameter made there must say what it is: the converter writes
``nn.Parameter(t)`` outside ``__init__`` as ``shims.nn.parameter(t)``, which marks the Var.
"""
from __future__ import annotations

__all__ = ["parameter"]

#: the attribute that marks a Var made by :func:`parameter`
_MARK = "_shim_parameter"


def parameter(data, requires_grad: bool = True):
    """``torch.nn.Parameter(data, requires_grad)``: ``data`` made trainable (``start_grad``) or
    frozen (``stop_grad``) by ``requires_grad``'s value when the line runs, and marked as a
    parameter (a module attribute it is assigned to is state, even after ``__init__``)."""
    out = data.start_grad() if requires_grad else data.stop_grad()
    setattr(out, _MARK, True)
    return out


def is_parameter(value) -> bool:
    """Whether ``value`` was made by :func:`parameter` (torch: an ``nn.Parameter``)."""
    return bool(getattr(value, _MARK, False))
