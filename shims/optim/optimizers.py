"""Adam, AdamW, SGD and RMSprop with torch's update rules, defaults and ``state_dict`` layout,
stepping from torch's ``.grad`` (the gradient store of :mod:`shims.autograd`).

Jittor 1.3.11's Adam adds eps to the uncorrected sqrt(v) and counts steps per ``backward``
(wrong with gradient accumulation), AdamW defaults to weight_decay=0, SGD ignores
``dampening``, and ``state_dict`` is not torch's.  These classes compute torch's updates from
each parameter's ``.grad``, skip a parameter whose ``.grad`` is ``None`` (no update, no step
counted: torch's rule), and keep Jittor's calls working: ``opt.step(loss)`` is torch's
``zero_grad(); loss.backward(); step()``, ``opt.backward(loss)`` accumulates into this
optimizer's parameters' ``.grad``, ``p.opt_grad(opt)`` is ``p.grad``.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Dict, List

import numpy as np

import jittor as jt

from .. import autograd as _autograd
from ..nn.functional import clip_grad_norm_
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
            _autograd.register_leaf(p)  # a tensor given to an optimizer is a leaf of the store
        groups.append(g)
    return groups


def _to_var(value, like: jt.Var) -> jt.Var:
    if isinstance(value, jt.Var):
        value = value.numpy()
    return jt.array(np.asarray(value).astype(np.dtype(str(like.dtype)))).reshape(like.shape).stop_grad()


_zero_grads = _autograd.zero_grads
# Jittor's own Var.update, for optimizer state (gradient-stopped buffers): the store's
# Var.update also keeps a trainable Var trainable, a check a state buffer never needs
_set = _autograd._C_UPDATE


class Optimizer(jt.optim.Optimizer):
    """Base class: torch-style param groups (every option filled in per group), per-parameter
    ``state`` with a step count, torch's ``state_dict``/``load_state_dict`` layout, updates from
    ``.grad``.  Subclasses define ``defaults`` and ``_update(p, g, state, group)``."""

    _counts_steps = True  # torch keeps a per-parameter 'step' (SGD does not)

    def __init_subclass__(cls, **kw):
        """A torch optimizer subclass in converted code defines ``step(self, closure=None)``;
        Jittor's fused ``opt.step(loss)`` (the training-step rule's form) reaches it with the loss
        as ``closure``: run ``zero_grad(); loss.backward()`` first, then its ``step()``."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("step")
        if own is None or getattr(own, "_jtport_fused", False):
            return

        def step(self, *args, **kwargs):
            if args and isinstance(args[0], jt.Var):
                self.zero_grad()
                _autograd.backward([args[0]], retain_graph=kwargs.pop("retain_graph", False))
                args = args[1:]
            return own(self, *args, **kwargs)

        step._jtport_fused = True
        step.__doc__, step.__name__, step.__qualname__ = own.__doc__, own.__name__, own.__qualname__
        cls.step = step

    def __init__(self, params, defaults: Dict[str, Any]):
        groups = _as_groups(params)
        self._defaults = dict(defaults)
        super().__init__(groups, defaults["lr"])
        for g in self.param_groups:
            for k, v in defaults.items():
                g.setdefault(k, v)
        self.state: Dict[int, Dict[str, Any]] = {}

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

    def params(self) -> List[jt.Var]:
        """Every parameter of every group, in order."""
        return [p for g in self.param_groups for p in g["params"]]

    def step(self, loss=None, retain_graph: bool = False):
        """torch's ``step()``: update every parameter whose ``.grad`` is not None.  With ``loss``
        (Jittor's fused call), first ``zero_grad(); loss.backward(retain_graph=...)``; torch's
        ``step(closure)`` calls the closure (its backward fills ``.grad``) first and returns its loss."""
        if callable(loss) and not isinstance(loss, jt.Var):
            with jt.enable_grad():
                closure_loss = loss()
            self.step()
            return closure_loss
        if loss is not None:
            self.zero_grad()
            _autograd.backward([loss], retain_graph=retain_graph)
        # No jt.no_grad() around the updates: Var.update under no_grad turns the parameter
        # stop_grad (measured), which froze every parameter after the first step.  update()
        # rebinds the parameter to a new node, as in Jittor's own optimizers.
        jt.flags.node_order = 1
        skipped = []
        states, update = self.state, self._update
        try:
            for group in self.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        skipped.append(p)
                        continue
                    if not g.is_stop_grad():
                        g = g.detach()  # a create_graph gradient: torch steps under no_grad
                    state = states.get(id(p))
                    if state is None:
                        state = states[id(p)] = {"step": 0}
                    state["step"] = state.get("step", 0) + 1  # a torch SGD checkpoint has no 'step'
                    update(p, g, state, group)
        finally:
            jt.flags.node_order = 0
        self.n_step += 1
        if skipped and len(skipped) < sum(len(g["params"]) for g in self.param_groups):
            _grads.explain_unreached(p.name() or f"shape {tuple(p.shape)}" for p in skipped)

    def _update(self, p: jt.Var, g: jt.Var, state: Dict[str, Any], group: Dict[str, Any]) -> None:
        raise NotImplementedError

    def trainable_params(self) -> List[jt.Var]:
        """The parameters a backward pass computes gradients for (not ``requires_grad=False``)."""
        return [p for p in self.params() if not p.is_stop_grad()]

    def backward(self, loss, retain_graph: bool = False) -> None:
        """Jittor's ``opt.backward(loss)``: accumulate the gradient of ``loss`` into the ``.grad`` of
        this optimizer's parameters (only theirs: ``loss.backward(inputs=params)``)."""
        params = self.trainable_params()
        if params:
            _autograd.backward([loss], retain_graph=retain_graph, inputs=params)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's ``zero_grad``: every parameter's ``.grad`` becomes None (or zeros, in place)."""
        _zero_grads(self.params(), set_to_none)

    def find_grad(self, v: jt.Var) -> jt.Var:
        """Jittor's ``opt.find_grad(p)`` / ``p.opt_grad(opt)``: ``p.grad`` (zeros when None)."""
        if not any(v is p for p in self.params()):
            raise RuntimeError("This variable is not managed by this optimizer")
        return v.grad if v.grad is not None else jt.zeros(v.shape, v.dtype).stop_grad()

    def clip_grad_norm(self, max_norm: float, norm_type: int = 2) -> None:
        """Jittor's ``opt.clip_grad_norm``: ``shims.nn.clip_grad_norm_`` over this optimizer's parameters."""
        clip_grad_norm_(self.params(), max_norm, norm_type)

    def state_dict(self) -> Dict[str, Any]:
        """torch's layout: ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index]}]}``;
        tensors are Vars (``shims.save`` writes them as torch tensors), ``step`` a 0-d float32."""
        groups, state = [], {}
        i = 0
        for group in self.param_groups:
            opts = {k: copy.deepcopy(v) for k, v in group.items()
                    if k != "params" and k in self._defaults}
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
        _set(m, m * b1 + g * (1 - b1))
        _set(v, v * b2 + g * g * (1 - b2))
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            _set(vmax, jt.maximum(vmax, v))
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
                _set(buf, buf * mom + g * (1 - group["dampening"]))
            g = g + mom * buf if group["nesterov"] else buf
        p.update(p - group["lr"] * g)


class RMSprop(Optimizer):
    """``torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, capturable=False, foreach=None, maximize=False, differentiable=False)``: eps
    added after the square root (``capturable``/``foreach``/``differentiable`` pick torch kernels)."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False, differentiable: bool = False,
                 **_):
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
        _set(sq, sq * alpha + g * g * (1 - alpha))
        if group["centered"]:
            ga = state["grad_avg"]
            _set(ga, ga * alpha + g * (1 - alpha))
            avg = jt.sqrt(sq - ga * ga) + group["eps"]
        else:
            avg = jt.sqrt(sq) + group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            _set(buf, buf * group["momentum"] + g / avg)
            p.update(p - group["lr"] * buf)
        else:
            p.update(p - group["lr"] * g / avg)
