"""``nn.Parameter(t, requires_grad=flag)`` with a flag known only at run time."""
from __future__ import annotations

__all__ = ["parameter"]


def parameter(data, requires_grad: bool = True):
    """``torch.nn.Parameter(data, requires_grad)``: ``data`` made trainable (``start_grad``) or
    frozen (``stop_grad``) by ``requires_grad``'s value when the line runs (``trainable`` a
    constructor argument); a literal flag is converted to the method call itself."""
    return data.start_grad() if requires_grad else data.stop_grad()
