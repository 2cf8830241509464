"""torch's SGD variants beyond SGD: ASGD (averaged SGD) and Rprop (resilient, sign-based steps).
"""
from __future__ import annotations

from typing import Optional

import jittor as jt

from .torchlike import _check, _f32, _Torchlike, _wd_grad

__all__ = ["ASGD", "Rprop"]


class ASGD(_Torchlike):
    """``torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False)``: ``eta`` and ``mu``
    are float32 scalars, ``ax`` the running average of the parameter."""

    _scalar_state = ("eta", "mu")

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= lambd, f"Invalid lambd value: {lambd}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p, g, state, group):
        g = _wd_grad(p, g, group)
        lr, lambd = group["lr"], group["lambd"]
        if "ax" not in state:
            state["eta"] = _f32(lr)
            state["mu"] = 1.0
            state["ax"] = jt.zeros_like(p).stop_grad()
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        p.update(p * (1 - lambd * eta) - eta * g)
        if mu != 1:
            ax.update(ax + (p - ax) * mu)
        else:
            ax.update(p.clone())
        step = state["step"]
        state["eta"] = _f32(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        state["mu"] = _f32(1 / max(1, step - group["t0"]))


class Rprop(_Torchlike):
    """``torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False)``."""

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize))

    def _update(self, p, g, state, group):
        if group["maximize"]:
            g = -g
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        if "prev" not in state:
            state["prev"] = jt.zeros_like(p).stop_grad()
            state["step_size"] = jt.full_like(p, group["lr"]).stop_grad()
        prev, size = state["prev"], state["step_size"]
        s = g * prev
        factor = jt.ternary(s > 0, jt.full_like(s, etaplus),
                            jt.ternary(s < 0, jt.full_like(s, etaminus), jt.ones_like(s)))
        size.update(jt.minimum(jt.maximum(size * factor, jt.full_like(size, lo)), jt.full_like(size, hi)))
        g = jt.ternary(s < 0, jt.zeros_like(g), g)
        sign = (g > 0).cast(g.dtype) - (g < 0).cast(g.dtype)
        p.update(p - sign * size)
        prev.update(g)


# -- L-BFGS ----------------------------------------------------------------------------------
