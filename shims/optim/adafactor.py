"""``torch.optim.Adafactor`` on the :class:`shims.optim.Optimizer` base, with torch's update rule
(its single-tensor code path, op by op), defaults, option checks and ``state_dict`` layout.

A parameter with two or more dimensions keeps factored second moments over its last two
dimensions (``row_var`` of shape ``[..., m, 1]`` and ``col_var`` of shape ``[..., 1, n]``), a
vector keeps a full ``variance``; ``step`` is a 0-d float32 in ``state_dict``, as torch's.
``foreach`` selects torch's multi-tensor kernel and changes no result: kept in the param groups
(as torch keeps it) and otherwise ignored.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

import jittor as jt

from ..ops.pointwise import lerp
from .torchlike import _f32, _scalar, _Torchlike

__all__ = ["Adafactor"]


#: ``torch.finfo(dtype).eps`` (np.finfo warns in a process that flushes subnormals)
_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _eps_of(dtype) -> float:
    """``torch.finfo(dtype).eps`` for a Jittor float dtype."""
    return _EPS[str(dtype)]


def _norm_item(v: jt.Var) -> float:
    """torch's ``v.norm(2).item()``: the 2-norm, rounded to ``v``'s precision (float32 for
    float32 tensors), as a Python float."""
    value = float(jt.sqrt((v.float64() * v.float64()).sum()).item())
    return _f32(value) if str(v.dtype) in ("float32", "float16", "bfloat16") else value


def _mean_square(g: jt.Var, dim: int) -> jt.Var:
    """torch's ``vector_norm(g, dim=dim, keepdim=True).square_().div_(g.size(dim))``: the norm
    is rounded before it is squared, as torch's."""
    norm = jt.sqrt((g * g).sum(dim, keepdims=True))
    return (norm * norm) / g.shape[dim]


class Adafactor(_Torchlike):
    """``torch.optim.Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)``.

    Per step ``t``: ``beta2`` weight ``t ** beta2_decay``, relative step ``min(lr, 1/sqrt(t))``
    scaled by ``max(eps2, RMS(param))``, decoupled weight decay ``param *= 1 - lr*wd``, the
    update ``grad / max(sqrt(V), eps1)`` clipped by ``max(1, RMS(update)/d)``; ``eps1=None`` is
    the parameter dtype's machine epsilon.  Matrices (and higher) factor ``V`` over their last
    two dimensions."""

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: Tuple[Optional[float], float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: Optional[bool] = None, maximize: bool = False):
        if isinstance(lr, jt.Var) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Load torch's layout; ``row_var``/``col_var`` keep their own (reduced) shapes."""
        factored: Dict[Any, Dict[str, Any]] = {}
        state = {}
        for idx, st in state_dict.get("state", {}).items():
            st = dict(st)
            for k in ("row_var", "col_var"):
                if k in st:
                    factored.setdefault(idx, {})[k] = st.pop(k)
            state[idx] = st
        super().load_state_dict({**state_dict, "state": state})
        by_index = [p for g in self.param_groups for p in g["params"]]
        for idx, vals in factored.items():
            p = by_index[int(idx)]
            for k, v in vals.items():
                arr = np.asarray(v.numpy() if isinstance(v, jt.Var) else v).astype(np.dtype(str(p.dtype)))
                self.state[id(p)][k] = jt.array(arr).stop_grad()

    def _update(self, p, g, state, group):
        if str(p.dtype).startswith("complex"):
            raise RuntimeError("Adafactor does not support complex parameters")
        lr, wd = _scalar(group["lr"]), group["weight_decay"]
        eps1, eps2 = group["eps"]
        if group["maximize"]:
            g = -g
        if eps1 is None:
            eps1 = _eps_of(p.dtype)
        if g.ndim > 1 and "row_var" not in state:
            state["row_var"] = jt.zeros((*g.shape[:-1], 1), g.dtype).stop_grad()
            state["col_var"] = jt.zeros((*g.shape[:-2], 1, g.shape[-1]), g.dtype).stop_grad()
        elif g.ndim <= 1 and "variance" not in state:
            state["variance"] = jt.zeros_like(g).stop_grad()

        step = float(state["step"])
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, _norm_item(p) / (p.numel() ** 0.5)) * rho_t
        if wd != 0:
            p.update(p * (1 - lr * wd))

        if g.ndim > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.update(lerp(row_var, _mean_square(g, -1), one_minus_beta2_t))
            col_var.update(lerp(col_var, _mean_square(g, -2), one_minus_beta2_t))
            # row_var @ col_var: an outer product (inner size 1), one rounding per element
            row_mean = row_var.sum(-2, keepdims=True) / row_var.shape[-2]
            var_estimate = (row_var * col_var) / jt.clamp(row_mean, min_v=eps1)
        else:
            variance = state["variance"]
            variance.update(lerp(variance, g * g, one_minus_beta2_t))
            var_estimate = variance
        # eps1 squared, as the square root follows
        update = (1.0 / jt.sqrt(jt.clamp(var_estimate, min_v=eps1 * eps1))) * g
        denom = max(1.0, _norm_item(update) / ((update.numel() ** 0.5) * group["d"]))
        p.update(p + (-alpha / denom) * update)
