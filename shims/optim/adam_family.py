"""torch's Adam variants beyond Adam/AdamW: Adamax, NAdam, RAdam.
"""
from __future__ import annotations

from typing import Optional

import jittor as jt

from ..ops.pointwise import lerp
from .torchlike import _check, _f32, _Torchlike, _wd_grad

__all__ = ["Adamax", "NAdam", "RAdam"]


class Adamax(_Torchlike):
    """``torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    foreach=None, *, maximize=False, differentiable=False, capturable=False)``."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: Optional[bool] = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p, g, state, group):
        g = _wd_grad(p, g, group)
        b1, b2 = group["betas"]
        if "exp_avg" not in state:
            state["exp_avg"] = jt.zeros_like(p).stop_grad()
            state["exp_inf"] = jt.zeros_like(p).stop_grad()
        m, u = state["exp_avg"], state["exp_inf"]
        m.update(lerp(m, g, 1 - b1))
        u.update(jt.maximum(u * b2, g.abs() + group["eps"]))
        clr = group["lr"] / (1 - b1 ** state["step"])
        p.update(p - clr * m / u)


class NAdam(_Torchlike):
    """``torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)``; ``mu_product`` is a float32 scalar, as torch's."""

    _scalar_state = ("mu_product",)

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p, g, state, group):
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if "exp_avg" not in state:
            state["mu_product"] = 1.0
            state["exp_avg"] = jt.zeros_like(p).stop_grad()
            state["exp_avg_sq"] = jt.zeros_like(p).stop_grad()
        step = state["step"]
        bc2 = 1 - b2 ** step
        if wd:
            if group["decoupled_weight_decay"]:
                p.update(p * (1 - lr * wd))
            else:
                g = g + wd * p
        mu = b1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        state["mu_product"] = _f32(state["mu_product"] * mu)
        mu_product = state["mu_product"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.update(lerp(m, g, 1 - b1))
        v.update(v * b2 + g * g * (1 - b2))
        denom = (v / bc2).sqrt() + group["eps"]
        mu_product_next = mu_product * mu_next
        p.update(p + (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
                 + (-lr * mu_next / (1.0 - mu_product_next)) * m / denom)


class RAdam(_Torchlike):
    """``torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``: the rectified update once the variance is tractable (rho_t > 5)."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize))

    def _update(self, p, g, state, group):
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if "exp_avg" not in state:
            state["exp_avg"] = jt.zeros_like(p).stop_grad()
            state["exp_avg_sq"] = jt.zeros_like(p).stop_grad()
        if wd:
            if group["decoupled_weight_decay"]:
                p.update(p * (1 - lr * wd))
            else:
                g = g + wd * p
        step = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.update(lerp(m, g, 1 - b1))
        v.update(v * b2 + g * g * (1 - b2))
        bc1 = 1 - b1 ** step
        bc2 = 1 - b2 ** step
        m_hat = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bc2 ** 0.5) / (v.sqrt() + group["eps"])
            p.update(p - m_hat * lr * adaptive * rect)
        else:
            p.update(p - m_hat * lr)
