"""Adam, AdamW, SGD and RMSprop with torch's update rules, defaults and ``state_dict`` layout.

Jittor 1.3.11's Adam adds eps to the uncorrected sqrt(v) and counts steps per ``backward``
(wrong with gradient accumulation), AdamW defaults to weight_decay=0, SGD ignores
``dampening``, and ``state_dict`` is not torch's.  These classes keep Jittor's optimizer
interface (``opt.step(loss)``, ``opt.backward(loss)``, ``opt.zero_grad()``, ``opt.step()``,
``p.opt_grad(opt)``) and compute torch's updates.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Dict, List

import numpy as np

import jittor as jt

from .. import distributed as _distributed
from . import grads as _grads

__all__ = ["Optimizer", "Adam", "AdamW", "SGD", "RMSprop"]


def _as_groups(params) -> List[Dict[str, Any]]:
    if isinstance(params, jt.Var):
        raise TypeError("params argument given to the optimizer should be an iterable of Vars "
                        "or dicts, but got a single Var")
    params = list(params)
    if not params:
        raise ValueError("optimizer got an empty parameter list")
    if not isinstance(params[0], dict):
        params = [{"params": params}]
    groups = []
    for i, g in enumerate(params):
        if not isinstance(g, dict) or "params" not in g:
            raise TypeError(f"param group {i} must be a dict with a 'params' entry")
        g = dict(g)
        g["params"] = [g["params"]] if isinstance(g["params"], jt.Var) else list(g["params"])
        for p in g["params"]:
            if not isinstance(p, jt.Var):
                raise TypeError(f"param group {i}: optimizer can only optimize jt.Var, got {type(p).__name__}")
        groups.append(g)
    return groups


def _to_var(value, like: jt.Var) -> jt.Var:
    if isinstance(value, jt.Var):
        value = value.numpy()
    return jt.array(np.asarray(value).astype(np.dtype(str(like.dtype)))).reshape(like.shape).stop_grad()


class Optimizer(jt.optim.Optimizer):
    """Base class: torch-style param groups (every option filled in per group), per-parameter
    ``state`` with a step count, torch's ``state_dict``/``load_state_dict`` layout, and Jittor's
    ``step(loss)``/``backward(loss)``/``zero_grad()`` interface (gradients come from Jittor's
    ``backward``).  Subclasses define ``defaults`` and ``_update(p, g, state, group)``."""

    _counts_steps = True  # torch keeps a per-parameter 'step' (SGD does not)

    def __init__(self, params, defaults: Dict[str, Any]):
        groups = _as_groups(params)
        self._defaults = dict(defaults)
        super().__init__(groups, defaults["lr"])
        for g in self.param_groups:
            for k, v in defaults.items():
                g.setdefault(k, v)
        self.state: Dict[int, Dict[str, Any]] = {}
        # ids of the parameters the loss(es) since zero_grad reached: torch's "p.grad is not
        # None"; step() skips the others, as torch does (no update, no step counted).
        self._has_grad: set = set()
        _grads.register(self)  # so a bare loss.backward() (shims.optim.backward) reaches us

    # torch code sets group['lr']; Jittor code and schedulers set opt.lr: keep both in sync
    @property
    def lr(self):
        groups = self.__dict__.get("param_groups")
        return groups[0]["lr"] if groups else self.__dict__.get("_lr")

    @lr.setter
    def lr(self, value):
        self.__dict__["_lr"] = value
        for g in self.__dict__.get("param_groups", []):
            g["lr"] = value

    @property
    def defaults(self) -> Dict[str, Any]:
        """torch's ``optimizer.defaults``."""
        return dict(self._defaults)

    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        """torch's ``add_param_group``: missing options come from the defaults."""
        (g,) = _as_groups([param_group])
        for k, v in self._defaults.items():
            g.setdefault(k, v)
        self.param_groups.append(g)

    def step(self, loss=None, retain_graph: bool = False):
        """Apply one update (after ``backward(loss)`` when ``loss`` is given), like torch's step;
        torch's ``step(closure)`` calls the closure (its backward feeds this optimizer) first
        and returns its loss."""
        if callable(loss) and not isinstance(loss, jt.Var):
            with jt.enable_grad():
                closure_loss = loss()
            self.step()
            return closure_loss
        self.pre_step(loss, retain_graph)
        # No jt.no_grad() around the updates: Var.update under no_grad turns the parameter
        # stop_grad (measured), which froze every parameter after the first step.  update()
        # itself cuts the graph, as in Jittor's own optimizers.
        for group in self.param_groups:
            grads = group.get("grads")
            if grads is None:
                continue
            for p, g in zip(group["params"], grads):
                if p.is_stop_grad() or id(p) not in self._has_grad:
                    continue
                state = self.state.setdefault(id(p), {"step": 0})
                state["step"] = state.get("step", 0) + 1  # a torch SGD checkpoint has no 'step'
                self._update(p, g, state, group)
        self.post_step()

    def _update(self, p: jt.Var, g: jt.Var, state: Dict[str, Any], group: Dict[str, Any]) -> None:
        raise NotImplementedError

    def trainable_params(self) -> List[jt.Var]:
        """The parameters a backward pass computes gradients for (not ``requires_grad=False``)."""
        return [p for g in self.param_groups for p in g["params"] if not p.is_stop_grad()]

    def backward(self, loss, retain_graph: bool = False) -> None:
        """Jittor's ``opt.backward(loss)`` (accumulates until ``step``/``zero_grad``), with torch's
        "no gradient": parameters the loss does not reach get none, silently (see
        :mod:`shims.optim.grads`)."""
        params = self.trainable_params()
        jt.sync(params)
        grads, reached = _grads.grads_reached(loss, params, retain_graph)
        self.accumulate({id(p): (g, r) for p, g, r in zip(params, grads, reached)})

    def accumulate(self, grads_by_id: Dict[int, Any]) -> None:
        """Add gradients computed elsewhere, ``{id(param): (grad, reached)}``, to this optimizer's
        (the first call after ``zero_grad`` replaces them, as in Jittor's ``backward``)."""
        if self._Optimizer__zero_grad:  # Jittor's own flag (the base class's private name)
            self._has_grad.clear()
        unreached = []
        summed: Dict[int, jt.Var] = {}
        reached: Dict[int, bool] = {}
        for group in self.param_groups:
            if "grads" not in group:
                group["grads"] = [jt.zeros_like(p).stop_grad().stop_fuse() for p in group["params"]]
            for i, p in enumerate(group["params"]):
                got = grads_by_id.get(id(p))
                if got is None or p.is_stop_grad():
                    continue
                g = got[0].stop_grad()
                summed[id(p)] = g if self._Optimizer__zero_grad else g + group["grads"][i]
                reached[id(p)] = got[1]
        # DDP averages the accumulated gradient (torch all-reduces .grad after each backward)
        _distributed.average_gradients(summed, reached)
        for group in self.param_groups:
            for i, p in enumerate(group["params"]):
                if id(p) not in summed:
                    continue
                group["grads"][i].update(summed[id(p)])
                if reached[id(p)]:
                    self._has_grad.add(id(p))
                elif id(p) not in self._has_grad:
                    unreached.append(p.name() or f"shape {tuple(p.shape)}")
        self._Optimizer__zero_grad = False
        self.n_step += 1
        _grads.explain_unreached(unreached)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's ``zero_grad``: the next backward's gradients replace the current ones, and
        until then no parameter has a gradient."""
        super().zero_grad()
        self._has_grad.clear()

    def state_dict(self) -> Dict[str, Any]:
        """torch's layout: ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index]}]}``;
        tensors are Vars (``shims.save`` writes them as torch tensors), ``step`` a 0-d float32."""
        groups, state = [], {}
        i = 0
        for group in self.param_groups:
            opts = {k: copy.deepcopy(v) for k, v in group.items()
                    if k not in ("params", "grads") and k in self._defaults}
            opts["params"] = list(range(i, i + len(group["params"])))
            for p in group["params"]:
                st = {k: (np.array(v, np.float32) if k == "step" else v)
                      for k, v in self.state.get(id(p), {}).items()
                      if k != "step" or self._counts_steps}
                if st:
                    state[i] = st
                i += 1
            groups.append(opts)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Load a state dict in torch's layout (from ``state_dict()`` or a torch checkpoint read
        by ``shims.load``).  Raises ValueError when the groups do not match, like torch."""
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict:
            raise ValueError("optimizer.load_state_dict: expected torch's layout with 'state' and 'param_groups'")
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(s["params"]) != len(g["params"]) for s, g in zip(saved, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        by_index = {}
        for s, g in zip(saved, self.param_groups):
            for idx, p in zip(s["params"], g["params"]):
                by_index[idx] = p
            for k, v in s.items():
                if k != "params":
                    g[k] = v
        self.state = {}
        for idx, st in state_dict.get("state", {}).items():
            p = by_index.get(int(idx))
            if p is None:
                raise ValueError(f"optimizer.load_state_dict: state for unknown parameter index {idx}")
            new = {}
            for k, v in st.items():
                if k == "step":
                    new[k] = int(round(float(v.item() if isinstance(v, jt.Var) else np.asarray(v).reshape(-1)[0])))
                elif isinstance(v, (jt.Var, np.ndarray)):
                    new[k] = _to_var(v, p)
                else:
                    new[k] = v
            self.state[id(p)] = new


class Adam(Optimizer):
    """``torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, maximize=False)``: bias-corrected moments, eps added to
    sqrt(v_hat) (= sqrt(v)/sqrt(1-beta2^t)), L2 weight decay added to the gradient."""

    _decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False,
                 decoupled_weight_decay: bool = False, **_):
        if lr < 0 or eps < 0 or not 0 <= betas[0] < 1 or not 0 <= betas[1] < 1 or weight_decay < 0:
            raise ValueError(f"{type(self).__name__}: invalid lr={lr}, betas={betas}, eps={eps} "
                             f"or weight_decay={weight_decay}")
        opts = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize)
        if decoupled_weight_decay and not self._decoupled:  # torch >= 2.6: Adam(decoupled_weight_decay=True) is AdamW
            opts["decoupled_weight_decay"] = True
        super().__init__(params, opts)

    def _update(self, p, g, state, group):
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if wd:
            if self._decoupled or group.get("decoupled_weight_decay"):
                p.update(p * (1 - lr * wd))
            else:
                g = g + wd * p
        if "exp_avg" not in state:
            state["exp_avg"] = jt.zeros_like(p).stop_grad()
            state["exp_avg_sq"] = jt.zeros_like(p).stop_grad()
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = jt.zeros_like(p).stop_grad()
        m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        m.update(m * b1 + g * (1 - b1))
        v.update(v * b2 + g * g * (1 - b2))
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            vmax.update(jt.maximum(vmax, v))
            v = vmax
        bc1 = 1 - b1 ** t
        bc2_sqrt = math.sqrt(1 - b2 ** t)
        denom = jt.sqrt(v) / bc2_sqrt + eps
        p.update(p - (lr / bc1) * m / denom)


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with decoupled weight decay ``p *= 1 - lr*wd`` (default 0.01)."""

    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, **kw):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, **kw)


class SGD(Optimizer):
    """``torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, maximize=False)``: the momentum buffer starts as the first gradient, then
    ``buf = momentum*buf + (1-dampening)*g``."""

    _counts_steps = False

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False, **_):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: invalid lr={lr}, momentum={momentum} or weight_decay={weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize))

    def _update(self, p, g, state, group):
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        mom = group["momentum"]
        if mom:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone().stop_grad()
            else:
                buf.update(buf * mom + g * (1 - group["dampening"]))
            g = g + mom * buf if group["nesterov"] else buf
        p.update(p - group["lr"] * g)


class RMSprop(Optimizer):
    """``torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, maximize=False)``: eps added after the square root."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False, *,
                 maximize: bool = False, **_):
        if lr < 0 or eps < 0 or alpha < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"RMSprop: invalid lr={lr}, alpha={alpha}, eps={eps}, "
                             f"momentum={momentum} or weight_decay={weight_decay}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize))

    def _update(self, p, g, state, group):
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        alpha = group["alpha"]
        if "square_avg" not in state:
            state["square_avg"] = jt.zeros_like(p).stop_grad()
            if group["momentum"] > 0:
                state["momentum_buffer"] = jt.zeros_like(p).stop_grad()
            if group["centered"]:
                state["grad_avg"] = jt.zeros_like(p).stop_grad()
        sq = state["square_avg"]
        sq.update(sq * alpha + g * g * (1 - alpha))
        if group["centered"]:
            ga = state["grad_avg"]
            ga.update(ga * alpha + g * (1 - alpha))
            avg = jt.sqrt(sq - ga * ga) + group["eps"]
        else:
            avg = jt.sqrt(sq) + group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.update(buf * group["momentum"] + g / avg)
            p.update(p - group["lr"] * buf)
        else:
            p.update(p - group["lr"] * g / avg)
