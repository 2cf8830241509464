"""torch's Adagrad and Adadelta (per-coordinate step sizes from accumulated squares).
"""
from __future__ import annotations

from typing import Optional

import jittor as jt

from .torchlike import _check, _Torchlike, _wd_grad

__all__ = ["Adadelta", "Adagrad"]


class Adadelta(_Torchlike):
    """``torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)``."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: Optional[bool] = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def _update(self, p, g, state, group):
        g = _wd_grad(p, g, group)
        rho, eps = group["rho"], group["eps"]
        if "square_avg" not in state:
            state["square_avg"] = jt.zeros_like(p).stop_grad()
            state["acc_delta"] = jt.zeros_like(p).stop_grad()
        sq, acc = state["square_avg"], state["acc_delta"]
        sq.update(sq * rho + g * g * (1 - rho))
        delta = (acc + eps).sqrt() / (sq + eps).sqrt() * g
        acc.update(acc * rho + delta * delta * (1 - rho))
        p.update(p - group["lr"] * delta)


class Adagrad(_Torchlike):
    """``torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False, differentiable=False,
    fused=None)``: the accumulator exists from construction (torch fills it in ``__init__``)."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Optional[bool] = None):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        for group in self.param_groups:
            for p in group["params"]:
                self.state[id(p)] = {"step": 0, "sum": jt.full_like(p, group["initial_accumulator_value"]).stop_grad()}

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        for p in group["params"]:
            self.state[id(p)] = {"step": 0, "sum": jt.full_like(p, group["initial_accumulator_value"]).stop_grad()}

    def _update(self, p, g, state, group):
        g = _wd_grad(p, g, group)
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        s = state["sum"]
        s.update(s + g * g)
        p.update(p - clr * g / (s.sqrt() + group["eps"]))
