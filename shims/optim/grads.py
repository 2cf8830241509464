"""Gradient helpers kept under ``shims.optim`` for code converted by earlier jtport versions.

The gradients themselves live in the store of :mod:`shims.autograd` (torch's ``.grad``):

* :func:`backward` is ``shims.optim.backward(loss, retain_graph=...)``, torch's
  ``loss.backward()``: every leaf the loss reaches accumulates its gradient, optimizer or not.
* :func:`grads_reached` is ``jt.grad`` that also says which targets the loss reached.  torch
  leaves ``p.grad`` at ``None`` for a parameter the loss does not depend on and its optimizers
  skip it (no update, no step counted); Jittor returns zeros and logs "grads[i] '<name>'
  doesn't have gradient. It will be set to zero" for every such parameter (once per name).
  Here the unreached targets are found without any log line, and an optimizer step that skips
  some of its parameters explains it once, in plain words (:class:`NoGradientWarning`).
"""
from __future__ import annotations

import warnings
from typing import Iterable

import jittor as jt

from ..autograd import backward as _backward
from ..autograd import grads_reached

__all__ = ["grads_reached", "backward", "NoGradientWarning", "explain_unreached"]

_explained = False


class NoGradientWarning(UserWarning):
    """Some parameters took no part in a loss; like torch, they get no gradient and no update."""


def explain_unreached(names: Iterable[str]) -> None:
    """Say once per process, in plain words, what a parameter without gradient means."""
    global _explained
    if _explained:
        return
    names = list(names)
    if not names:
        return
    _explained = True
    shown = ", ".join(repr(n) for n in names[:3]) + (" ..." if len(names) > 3 else "")
    warnings.warn(
        f"{len(names)} parameter(s) took no part in computing the loss ({shown}), e.g. heads or "
        "branches this loss does not use, or a network whose inputs were detached. As in torch (their "
        "grad stays None), the optimizer leaves them and their state unchanged this step. Jittor "
        "itself would log \"doesn't have gradient. It will be set to zero\" for each of them; "
        "this is said once.", NoGradientWarning, stacklevel=3)


def backward(loss: jt.Var, retain_graph: bool = False) -> None:
    """torch's ``loss.backward(retain_graph=...)``: see :func:`shims.autograd.backward`."""
    _backward([loss], retain_graph=retain_graph)
