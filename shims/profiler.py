"""``torch.autograd.profiler``: what converted code needs of it to run under Jittor."""
from __future__ import annotations

import contextlib


class record_function(contextlib.ContextDecorator):
    """``torch.autograd.profiler.record_function(name, args=None)``: a labelled profiler range.

    Jittor has no named ranges to open, so entering and leaving do nothing; as in torch, the
    object works as a ``with`` block and as a decorator, and ``name`` is kept for inspection."""

    def __init__(self, name: str, args=None):
        self.name = name
        self.args = args

    def __enter__(self) -> record_function:
        return self

    def __exit__(self, *exc) -> bool:
        return False

