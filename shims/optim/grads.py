"""torch's gradient bookkeeping on Jittor: "no gradient" means *no* gradient, and a bare
``loss.backward()`` that no optimizer call follows (HiSD calls it inside ``forward``).

* :func:`grads_reached` is ``jt.grad`` that also says which targets the loss reached.  torch
  leaves ``p.grad`` at ``None`` for a parameter the loss does not depend on and its optimizers
  skip it (no update, no step counted); Jittor returns zeros and logs "grads[i] '<name>'
  doesn't have gradient. It will be set to zero" for every such parameter (once per name), so
  a GAN whose discriminator sees only one of its heads per step floods the log and its Adam
  state drifts from torch's.  Here the unreached targets are found without any log line and
  explained once, in plain words (:class:`NoGradientWarning`).
* :func:`backward` is torch's ``loss.backward()``: the gradients go to every live
  ``shims.optim`` optimizer holding a trainable parameter of the loss, as if each had run
  ``opt.backward(loss)``; ``opt.step()`` then applies them.  ``retain_graph`` as in torch.
"""
from __future__ import annotations

import os
import sys
import warnings
import weakref
from typing import Dict, Iterable, List, Sequence, Tuple

import jittor as jt

__all__ = ["grads_reached", "backward", "owner_of", "register", "NoGradientWarning"]

# One name for every target during jt.grad: Jittor logs a broken gradient once per *name*, so
# with this name it can log at most once, and that once happens in _silence(), discarded.
_PROBE_NAME = "jtport.no_gradient_probe"
_silenced = False
_explained = False
_optimizers: "weakref.WeakSet" = weakref.WeakSet()


class NoGradientWarning(UserWarning):
    """Some parameters took no part in a loss; like torch, they get no gradient and no update."""


def register(optimizer) -> None:
    """Make ``optimizer`` (a ``shims.optim`` optimizer) receive :func:`backward`'s gradients."""
    _optimizers.add(optimizer)


def _silence() -> None:
    """Spend Jittor's one log line for the probe name while stderr goes to /dev/null."""
    global _silenced
    if _silenced:
        return
    probe = jt.zeros(1)
    probe.name(_PROBE_NAME)
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        jt.grad(jt.ones(1).sum(), [probe])
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
    _silenced = True


def grads_reached(loss: jt.Var, targets: Sequence[jt.Var], retain_graph: bool = False
                  ) -> Tuple[List[jt.Var], List[bool]]:
    """``jt.grad(loss, targets)`` plus, per target, whether the loss depends on it at all.

    How: an extra target the loss cannot reach goes first.  Jittor creates the zero gradients of
    unreached targets after every real gradient, in target order, so a target is unreached
    exactly when its gradient Var is not older than the probe's.  All targets carry one
    temporary name meanwhile, so Jittor logs nothing (see :func:`_silence`)."""
    _silence()
    probe = jt.zeros(1)
    targets = [probe, *targets]
    names = [t.name() for t in targets]
    for t in targets:
        t.name(_PROBE_NAME)
    try:
        grads = jt.grad(loss, targets, retain_graph)
    finally:
        for t, n in zip(targets, names):
            t.name(n)
    first_unreached = grads[0].id
    return list(grads[1:]), [g.id < first_unreached for g in grads[1:]]


def explain_unreached(names: Iterable[str]) -> None:
    """Say once per process, in plain words, what an unreached parameter means."""
    global _explained
    names = list(names)
    if _explained or not names:
        return
    _explained = True
    shown = ", ".join(repr(n) for n in names[:3]) + (" ..." if len(names) > 3 else "")
    warnings.warn(
        f"{len(names)} parameter(s) took no part in computing the loss ({shown}), e.g. heads or "
        "branches this loss does not use, or a network whose inputs were detached. As in torch (their "
        "grad stays None), the optimizer leaves them and their state unchanged this step. Jittor "
        "itself would log \"doesn't have gradient. It will be set to zero\" for each of them; "
        "this is said once.", NoGradientWarning, stacklevel=3)


def owner_of(params: Iterable[jt.Var]):
    """The live ``shims.optim`` optimizer holding all of ``params`` (None if there is none)."""
    ids = {id(p) for p in params}
    for opt in list(_optimizers):
        held = {id(p) for g in opt.param_groups for p in g["params"]}
        if ids and ids <= held:
            return opt
    return None


def backward(loss: jt.Var, retain_graph: bool = False) -> None:
    """torch's ``loss.backward()``: accumulate the gradient of ``loss`` into every live
    ``shims.optim`` optimizer, for its trainable (not ``requires_grad=False``) parameters."""
    optimizers = [o for o in list(_optimizers)]
    params: Dict[int, jt.Var] = {}
    for opt in optimizers:
        for p in opt.trainable_params():
            params.setdefault(id(p), p)
    if not params:
        raise RuntimeError("loss.backward(): no shims.optim optimizer holds a parameter that "
                           "requires grad; create the optimizer before calling backward()")
    order = list(params.values())
    jt.sync(order)
    grads, reached = grads_reached(loss, order, retain_graph)
    by_id = {id(p): (g, r) for p, g, r in zip(order, grads, reached)}
    for opt in optimizers:
        opt.accumulate(by_id)
