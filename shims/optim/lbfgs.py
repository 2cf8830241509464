"""torch's LBFGS, with its cubic interpolation and strong-Wolfe line search.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional

import jittor as jt
import numpy as np

from .torchlike import _check, _f32, _Torchlike

__all__ = ["LBFGS"]


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
