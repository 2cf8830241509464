"""Learning-rate schedulers with torch's step timing.

Torch's schedulers call ``step()`` once in their constructor (``last_epoch`` becomes 0 and the
lr stays the initial one); Jittor 1.3.11's MultiStepLR, CosineAnnealingLR and ExponentialLR skip
that and lag one epoch.  These follow torch's recursive (chainable) formulas, so several
schedulers on one optimizer compose like torch's.  They work with ``shims.optim`` optimizers
and with Jittor's own (each param group gets an explicit ``'lr'``).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from typing import Callable, List, Sequence, Union

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR"]


class LRScheduler:
    """torch's ``LRScheduler`` base: ``initial_lr``/``base_lrs``, ``last_epoch``, ``step()``,
    ``get_last_lr()``, ``state_dict()``/``load_state_dict()``."""

    def __init__(self, optimizer, last_epoch: int = -1):
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"{type(optimizer).__name__} is not an optimizer")
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("lr", optimizer.lr)
            if last_epoch == -1:
                group["initial_lr"] = group["lr"]
            elif "initial_lr" not in group:
                raise KeyError("param 'initial_lr' is not specified in param_groups when resuming "
                               "an optimizer (last_epoch != -1)")
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self) -> List[float]:
        """The lrs for the current ``last_epoch`` (torch's chainable form)."""
        raise NotImplementedError

    def get_last_lr(self) -> List[float]:
        """The lrs set by the last ``step()``."""
        return list(self._last_lr)

    def step(self, epoch: Union[int, None] = None) -> None:
        """Advance one epoch (or jump to ``epoch`` with the closed form), like torch."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            values = self._closed_form() if hasattr(self, "_closed_form") else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        if hasattr(self.optimizer, "_lr"):
            self.optimizer.__dict__["_lr"] = values[0]
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Everything but the optimizer (and functions), as torch."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer" and not callable(v)}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a ``state_dict()``."""
        self.__dict__.update(state_dict)

    def _lrs(self) -> List[float]:
        return [g["lr"] for g in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    """``torch.optim.lr_scheduler.LambdaLR``: lr = initial_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda: Union[Callable, Sequence[Callable]], last_epoch: int = -1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(self.lr_lambdas) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(self.lr_lambdas)}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}


class StepLR(LRScheduler):
    """``torch.optim.lr_scheduler.StepLR``: multiply by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``torch.optim.lr_scheduler.MultiStepLR``: multiply by ``gamma`` at each milestone."""

    def __init__(self, optimizer, milestones: Sequence[int], gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._lrs()]

    def _closed_form(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``torch.optim.lr_scheduler.ExponentialLR``: multiply by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``torch.optim.lr_scheduler.CosineAnnealingLR`` (torch's recursive form, restarts after
    ``T_max`` included)."""

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        T, eta = self.T_max, self.eta_min
        if self._is_initial or self.last_epoch == 0:
            return self._lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return [eta + (b - eta) * (1 + math.cos(self.last_epoch * math.pi / T)) / 2
                    for b in self.base_lrs]
        if (self.last_epoch - 1 - T) % (2 * T) == 0:
            return [lr + (b - eta) * (1 - math.cos(math.pi / T)) / 2
                    for b, lr in zip(self.base_lrs, self._lrs())]
        return [(1 + math.cos(math.pi * self.last_epoch / T)) / (1 + math.cos(math.pi * (self.last_epoch - 1) / T))
                * (lr - eta) + eta for lr in self._lrs()]

    def _closed_form(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]
