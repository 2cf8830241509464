"""torch's grad-mode switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``, ``is_grad_enabled``, over Jittor's ``jt.flags.no_grad``.

Each works as torch's does: as a context manager, as a decorator called (``@torch.no_grad()``)
or bare (``@torch.no_grad``: Jittor's ``jt.no_grad`` fails there at import), and
``set_grad_enabled(False)`` also as a plain call that switches gradients off until switched on.
"""
from __future__ import annotations

import functools

import jittor as jt

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled", "defer_sync"]

# Vars written in place inside a grad-mode block (``copy_`` under ``no_grad``: the EMA idiom), synced
# together when the block exits: one graph run for a model's worth of writes instead of one each
# (HiSD's update_average spent 20% of a training step in per-parameter syncs).
_open_blocks = [0]
_pending: list = []  # (Var, restart its gradient after the sync)


def defer_sync(var, restart_grad: bool) -> None:
    """Sync ``var`` when the innermost open grad-mode block exits (at once outside any), then,
    when ``restart_grad``, let it require gradients again."""
    if _open_blocks[0]:
        _pending.append((var, restart_grad))
        return
    var.sync()
    if restart_grad:
        var.start_grad()


def _flush() -> None:
    if not _pending:
        return
    written = list(_pending)
    _pending.clear()
    jt.sync([v for v, _ in written])
    for v, restart in written:
        if restart:
            v.start_grad()


class no_grad:  # noqa: N801  (torch's name)
    """Inside, results do not require gradients (``jt.flags.no_grad = 1``)."""

    _grad = False

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], bool):
            return cls()(args[0])  # the bare decorator: @no_grad
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        self._saved = []

    def __enter__(self):
        self._saved.append(jt.flags.no_grad)
        jt.flags.no_grad = 0 if self._grad else 1
        _open_blocks[0] += 1
        return self

    def __exit__(self, *exc) -> bool:
        _open_blocks[0] -= 1
        try:
            _flush()
        finally:
            jt.flags.no_grad = self._saved.pop()
        return False

    def __call__(self, func):
        mode = self

        @functools.wraps(func)
        def run(*args, **kwargs):
            with mode.clone():
                return func(*args, **kwargs)

        return run

    def clone(self):
        """A fresh switch of the same kind (a decorated function may be re-entered)."""
        return type(self)()


class enable_grad(no_grad):  # noqa: N801
    """Inside, results require gradients again (under an outer ``no_grad``)."""

    _grad = True


class inference_mode(no_grad):  # noqa: N801
    """torch's ``inference_mode(mode=True)``: Jittor's ``no_grad`` (``mode=False``: no change)."""

    def __init__(self, mode: bool = True):
        super().__init__()
        self.mode = mode

    def __enter__(self):
        self._saved.append(jt.flags.no_grad)
        if self.mode:
            jt.flags.no_grad = 1
        return self

    def clone(self):
        return type(self)(self.mode)


class set_grad_enabled(no_grad):  # noqa: N801
    """torch's ``set_grad_enabled(mode)``: takes effect when called; as a context manager (or
    decorator) the previous mode comes back at its end."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool):
        super().__init__()
        self.mode = bool(mode)
        self._saved.append(jt.flags.no_grad)
        jt.flags.no_grad = 0 if self.mode else 1

    def __enter__(self):
        return self

    def clone(self):
        return type(self)(self.mode)


def is_grad_enabled() -> bool:
    """True unless inside ``no_grad`` (``not jt.flags.no_grad``)."""
    return not jt.flags.no_grad
