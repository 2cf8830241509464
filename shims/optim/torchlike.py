"""The base of jtport's torch-exact optimizers (:class:`_Torchlike`): torch's single-tensor CPU
update rules, defaults, option checks and ``state_dict`` layout on :class:`shims.optim.Optimizer`
(Jittor's ``step(loss)``/``backward(loss)``, torch's param groups, "no gradient, no update").

Scalars torch keeps as 0-d float32 tensors in the state (``step``, NAdam's ``mu_product``,
ASGD's ``eta`` and ``mu``) are rounded to float32 here too (:func:`_f32`), so long runs keep
torch's values; ``state_dict()`` gives them as 0-d float32 arrays, as torch's checkpoints hold them.

``step(closure)``: torch's optimizers accept a closure that re-evaluates the loss (its
``loss.backward()`` fills ``.grad`` in shims' gradient store, which the optimizer steps from);
LBFGS needs one.  ``foreach``/``fused``/``capturable``/``differentiable`` select torch kernels
and change no result: accepted and ignored.
"""
from __future__ import annotations

from typing import Any, Dict

import jittor as jt
import numpy as np

from .optimizers import Optimizer


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
