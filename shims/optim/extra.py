"""The rest of ``torch.optim``: Adadelta, Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS,
with torch's update rules (its single-tensor CPU code path), defaults, option checks and
``state_dict`` layout, on the :class:`shims.optim.Optimizer` base (Jittor's ``step(loss)`` /
``backward(loss)`` interface, torch's param groups and "no gradient, no update").

Scalars torch keeps as 0-d float32 tensors in the state (``step``, NAdam's ``mu_product``,
ASGD's ``eta`` and ``mu``) are rounded to float32 here too, so long runs keep torch's values;
``state_dict()`` gives them as 0-d float32 arrays, as torch's checkpoints hold them.

``step(closure)``: torch's optimizers accept a closure that re-evaluates the loss (its
``loss.backward()`` fills ``.grad`` in shims' gradient store, which this optimizer steps from);
LBFGS needs one.  ``foreach``/``fused``/``capturable``/``differentiable`` select torch kernels
and change no result: accepted and ignored.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional

import numpy as np

import jittor as jt

from ..ops.pointwise import lerp
from .optimizers import Optimizer

__all__ = ["Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"]


def _f32(x) -> float:
    """``x`` rounded to float32 (torch's 0-d float32 state scalars), as a Python float."""
    return float(np.float32(x))


def _scalar(value) -> float:
    """A Python float of ``value`` (torch accepts a 1-element tensor lr)."""
    return float(value.item()) if isinstance(value, jt.Var) else value


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


class _Torchlike(Optimizer):
    """Shared piece: float32 scalar state in ``state_dict``."""

    #: state entries torch keeps as 0-d float32 tensors (besides ``step``)
    _scalar_state: tuple = ()

    def state_dict(self) -> Dict[str, Any]:
        sd = super().state_dict()
        for st in sd["state"].values():
            for k in self._scalar_state:
                if k in st:
                    st[k] = np.array(st[k], np.float32)
        return sd

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        scalars: Dict[Any, Dict[str, float]] = {}
        state = {}
        for idx, st in state_dict.get("state", {}).items():
            st = dict(st)
            for k in self._scalar_state:
                if k in st:
                    v = st.pop(k)
                    value = v.item() if isinstance(v, jt.Var) else np.asarray(v).reshape(-1)[0]
                    scalars.setdefault(idx, {})[k] = _f32(value)
            state[idx] = st
        super().load_state_dict({**state_dict, "state": state})
        by_index = [p for g in self.param_groups for p in g["params"]]
        for idx, vals in scalars.items():
            self.state[id(by_index[int(idx)])].update(vals)


def _wd_grad(p, g, group):
    if group.get("maximize"):
        g = -g
    if group["weight_decay"]:
        g = g + group["weight_decay"] * p
    return g


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

def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """torch's strong-Wolfe line search (``torch.optim.lbfgs._strong_wolfe``), on float32
    numpy vectors."""
    d_norm = float(np.abs(d).max())
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals


class LBFGS(_Torchlike):
    """``torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None, *, maximize=False)``.

    ``step(closure)`` runs torch's algorithm (two-loop recursion, optional strong-Wolfe line
    search) on the flattened parameters in float32 (numpy on the host: every iteration decides
    on scalars, as torch's does); the closure's ``loss.backward()`` reaches this optimizer
    through ``.grad`` (shims' gradient store).  One parameter group, as torch requires."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval: Optional[int] = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: Optional[str] = None, *, maximize: bool = False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn, maximize=maximize))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._lbfgs_state: Dict[str, Any] = {}

    # -- flat views ---------------------------------------------------------------------
    def _gather_flat_grad(self) -> np.ndarray:
        group = self.param_groups[0]
        views = []
        for p in self._params:
            g = p.grad  # shims' gradient store: None until a backward reached p
            if g is None or p.is_stop_grad():
                views.append(np.zeros(int(np.prod(p.shape)), np.float32))
            else:
                views.append(g.numpy().astype(np.float32).reshape(-1))
        flat = np.concatenate(views) if views else np.zeros(0, np.float32)
        return -flat if group.get("maximize", False) else flat

    def _add_grad(self, step_size: float, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = int(np.prod(p.shape))
            v = p.numpy().astype(np.float32) + np.float32(step_size) * update[offset:offset + n].reshape(tuple(p.shape))
            p.update(jt.array(v.astype(np.float32)))
            offset += n

    def _clone_param(self) -> List[np.ndarray]:
        return [p.numpy().copy() for p in self._params]

    def _set_param(self, params_data: List[np.ndarray]) -> None:
        for p, v in zip(self._params, params_data):
            p.update(jt.array(v))

    def _evaluate(self, closure: Callable) -> float:
        with jt.enable_grad():
            loss = closure()
        return float(loss.item() if isinstance(loss, jt.Var) else loss)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = self._evaluate(closure)
        if self.param_groups[0].get("maximize", False):
            loss = -loss
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the algorithm ------------------------------------------------------------------
    def step(self, closure=None, retain_graph: bool = False):  # noqa: C901 - torch's algorithm, kept in one piece
        """One L-BFGS step: up to ``max_iter`` iterations, ``closure`` re-evaluating the loss."""
        if not callable(closure) or isinstance(closure, jt.Var):
            raise TypeError("LBFGS.step(closure): a closure that re-evaluates the model and returns the "
                            "loss is required (as in torch)")
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        maximize = group.get("maximize", False)
        state = self._lbfgs_state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with jt.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss.item() if isinstance(orig_loss, jt.Var) else orig_loss)
        if maximize:
            loss = -loss
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = np.float32(1)
            else:
                y = flat_grad - prev_flat_grad
                s = d * np.float32(t)
                ys = np.float32(y.dot(s))
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(np.float32(1.0) / ys)
                    H_diag = ys / np.float32(y.dot(y))
                num_old = len(old_dirs)
                al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = np.float32(old_stps[i].dot(q)) * ro[i]
                    q = q - al[i] * old_dirs[i]
                d = r = q * np.float32(H_diag)
                for i in range(num_old):
                    be_i = np.float32(old_dirs[i].dot(r)) * ro[i]
                    r = r + (al[i] - be_i) * old_stps[i]
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = float(min(np.float32(1.0), np.float32(1.0) / np.abs(flat_grad).sum(dtype=np.float32))) * lr
                t = _f32(t)
            else:
                t = lr
            gtd = float(np.float32(flat_grad.dot(d)))
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    loss = -loss if maximize else loss
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * np.float32(t)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def state_dict(self) -> Dict[str, Any]:
        """torch's layout: all of L-BFGS's state sits on the first parameter."""
        sd = super().state_dict()
        st = {k: (v if not isinstance(v, np.ndarray) else v.copy()) for k, v in self._lbfgs_state.items()}
        sd["state"] = {0: st} if st else {}
        return sd

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        st = dict(state_dict.get("state", {}).get(0, {}))
        super().load_state_dict({**state_dict, "state": {}})
        conv = {}
        for k, v in st.items():
            if isinstance(v, jt.Var):
                v = v.numpy()
            if isinstance(v, list):
                v = [x.numpy() if isinstance(x, jt.Var) else x for x in v]
            conv[k] = v
        self._lbfgs_state = conv
