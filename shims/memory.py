"""Keeping Jittor's lazy graph from growing: a syncing EMA update, a growth watchdog, a report.

Jittor executes lazily.  A Var that is updated every step but never read (the classic case:
an EMA copy of the generator's weights, updated with ``assign``/``update``) keeps its whole
history alive: on 1.3.11 about 48 more live Vars per step, and the first read after 1000
steps compiled for minutes.  ``detach``/``no_grad`` do not help; syncing the updated Vars does.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import jittor as jt

__all__ = ["ema_update", "GraphWatch", "GraphGrowthError", "memory_report"]


def _pairs(target, source) -> Tuple[List[Tuple[jt.Var, jt.Var]], List[Tuple[jt.Var, jt.Var]]]:
    """(parameter pairs, buffer pairs) of two modules (matched by state_dict key) or Var lists."""
    if isinstance(target, jt.Module) and isinstance(source, jt.Module):
        t, s = target.state_dict(), source.state_dict()
        if list(t) != list(s):
            missing = sorted(set(t) ^ set(s))[:5]
            raise ValueError(f"ema_update: target and source differ in state_dict keys (e.g. {missing})")
        trainable = {id(p) for p in source.parameters() if not p.is_stop_grad()}
        params = [(t[k], s[k]) for k in t if id(s[k]) in trainable]
        buffers = [(t[k], s[k]) for k in t if id(s[k]) not in trainable]
        return params, buffers
    t, s = list(target), list(source)
    if len(t) != len(s):
        raise ValueError(f"ema_update: {len(t)} target Vars but {len(s)} source Vars")
    return list(zip(t, s)), []


def ema_update(target, source, beta: float, copy_buffers: bool = True) -> None:
    """``p_ema.copy_(p.lerp(p_ema, beta))`` for every parameter (StyleGAN2's EMA), buffers
    copied, then the updated Vars synced so the graph cannot grow across steps.

    ``target``/``source``: two modules with the same ``state_dict`` keys (parameters are the
    source's trainable Vars; everything else is a buffer) or two equal-length lists of Vars.
    The update uses torch's ``lerp`` formula and never carries gradients.
    """
    beta = float(beta)
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"ema_update: beta must be in [0, 1], got {beta}")
    params, buffers = _pairs(target, source)
    updated = []
    with jt.no_grad():
        for t, s in params:
            if tuple(t.shape) != tuple(s.shape):
                raise ValueError(f"ema_update: shape {tuple(t.shape)} vs {tuple(s.shape)}")
            s, tv = s.detach(), t.detach()
            # torch's lerp(start=s, end=t, weight=beta), both branches as in ATen
            new = s + beta * (tv - s) if beta < 0.5 else tv - (tv - s) * (1.0 - beta)
            t.update(new.cast(t.dtype))
            updated.append(t)
        if copy_buffers:
            for t, s in buffers:
                t.update(s.detach().cast(t.dtype))
                updated.append(t)
    jt.sync(updated)


class GraphGrowthError(RuntimeError):
    """Jittor's live graph kept growing across training steps."""


class GraphWatch:
    """Watch ``lived_vars``/``lived_ops`` per training step and raise when they keep growing.

    Use as a context manager and call :meth:`step` once per iteration (or :meth:`attach` it to
    an optimizer so every ``opt.step`` records).  After ``warmup`` steps, if ``lived_vars`` rose
    (never fell) over the last ``patience`` steps by at least ``min_growth`` per step, it raises
    :class:`GraphGrowthError` naming the likely cause.  ``history`` keeps one dict per step.
    """

    def __init__(self, warmup: int = 5, patience: int = 20, min_growth: float = 1.0,
                 raise_error: bool = True):
        if warmup < 0 or patience < 2:
            raise ValueError("GraphWatch: warmup must be >= 0 and patience >= 2")
        self.warmup, self.patience, self.min_growth = warmup, patience, min_growth
        self.raise_error = raise_error
        self.history: List[Dict[str, int]] = []
        self.growing = False

    def __enter__(self) -> "GraphWatch":
        self.history = []
        self.growing = False
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def step(self) -> Dict[str, int]:
        """Record this step's liveness; raise (or set ``growing``) when growth persists."""
        info = dict(jt.liveness_info())
        self.history.append(info)
        n = len(self.history)
        if n > self.warmup + self.patience:
            window = [h["lived_vars"] for h in self.history[-(self.patience + 1):]]
            rising = all(b >= a for a, b in zip(window, window[1:]))
            per_step = (window[-1] - window[0]) / self.patience
            if rising and per_step >= self.min_growth:
                self.growing = True
                if self.raise_error:
                    raise GraphGrowthError(self._explain(window, per_step))
        return info

    def _explain(self, window: Sequence[int], per_step: float) -> str:
        ops = [h["lived_ops"] for h in self.history[-(self.patience + 1):]]
        held = self.history[-1]["hold_vars"]
        return (f"Jittor's live graph grew for {self.patience} steps in a row: lived_vars "
                f"{window[0]} -> {window[-1]} (+{per_step:.1f}/step), lived_ops {ops[0]} -> {ops[-1]}, "
                f"{held} Vars held by Python. Likely cause: Vars updated every step but never "
                "read (an EMA copy updated with assign/update, running statistics, a metric "
                "accumulated as a Var), so each step's computation stays pending. Fix: use "
                "shims.ema_update (it syncs), call jt.sync(updated_vars) each step, or accumulate "
                "Python numbers with .item().")

    def attach(self, optimizer) -> "GraphWatch":
        """Record after every ``optimizer.step(...)`` call (an instance-level wrapper)."""
        inner = optimizer.step

        def step(*args, **kw):
            out = inner(*args, **kw)
            self.step()
            return out

        optimizer.step = step
        return self


def _gib(n: float) -> str:
    return f"{n / 2 ** 30:.2f} GiB" if n >= 2 ** 30 else f"{n / 2 ** 20:.1f} MiB"


def memory_report() -> str:
    """A plain-words summary of what Jittor holds (instead of ``jt.display_memory_info``'s dump):
    live Vars/ops, Vars held by Python, pending (unsynced) Vars, and RAM/GPU memory in use."""
    info = jt.liveness_info()
    mem = jt.get_mem_info()
    lines = [
        f"Jittor holds {info['lived_vars']} live Vars and {info['lived_ops']} live ops; "
        f"{info['hold_vars']} Vars are referenced from Python.",
        f"CPU memory used by Jittor: {_gib(mem.total_cpu_used)} of {_gib(mem.total_cpu_ram)} installed.",
    ]
    if jt.flags.use_cuda:
        lines.append(f"GPU memory used by Jittor: {_gib(mem.total_cuda_used)} of {_gib(mem.total_cuda_ram)}.")
    else:
        lines.append("GPU: not in use (jt.flags.use_cuda = 0).")
    pending = info["lived_vars"] - info["hold_vars"]
    if pending > max(100, 2 * info["hold_vars"]):
        lines.append(f"{pending} live Vars are not referenced from Python: they are intermediate "
                     "results of computations that have not run yet. If this number grows every "
                     "step, something is updated but never read (see shims.GraphWatch); "
                     "jt.sync_all() runs pending work, jt.gc() frees unreferenced memory.")
    return "\n".join(lines)
