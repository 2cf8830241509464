"""``torch.optim.swa_utils`` on Jittor: ``AveragedModel``, ``SWALR``, ``update_bn`` and the
averaging-function factories, with torch's formulas, defaults, checks and ``state_dict`` keys.

:class:`AveragedModel` is a ``shims.nn.Module`` holding a deep copy of the model as ``module``
and an int64 ``n_averaged`` buffer, so its ``state_dict`` keys are torch's (``n_averaged``,
``module.*``) and torch checkpoints load by key.  Averages are written into the copy's Vars
(``Var.update``: the Vars keep their identity, as torch's in-place ``copy_``/``lerp_``).

The default average (no ``avg_fn``/``multi_avg_fn``) is torch's CPU path,
``avg + (p - avg) / (n_averaged + 1)`` per tensor, integer buffers truncated back to their
dtype; torch on CUDA lerps with weight ``1/(n_averaged + 1)`` instead (the same value up to
float32 rounding).
"""
from __future__ import annotations

import copy
import itertools
import math
import warnings
from typing import Any, Callable, Dict, List, Optional

import jittor as jt
import numpy as np

from ..autograd import _JT_BUFFERS
from ..grad_mode import no_grad
from ..nn.module import Module
from ..nn.norm import _BatchNorm
from ..ops.pointwise import lerp
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior "
                "is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _is_float(v: jt.Var) -> bool:
    return v.dtype.is_float()


def _count(n) -> int:
    return int(n.item()) if isinstance(n, jt.Var) else int(n)


def _write(target: jt.Var, value: jt.Var) -> None:
    """torch's ``target.copy_(value)``: ``value`` cast to ``target``'s dtype (floats to integers
    truncate), written into ``target`` itself."""
    value = value.detach()
    if value.dtype != target.dtype:
        value = value.cast(target.dtype)
    target.update(value)


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """torch's ``get_ema_multi_avg_fn(decay)``: a ``multi_avg_fn`` that updates a list of
    averaged tensors in place, ``ema.lerp_(p, 1 - decay)`` (integers: ``ema*decay + p*(1-decay)``
    truncated); ValueError for a decay outside [0, 1]."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    def ema_update(ema_param_list, current_param_list, _) -> None:
        if _is_float(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                _write(p_ema, lerp(p_ema.detach(), p_model.detach(), 1 - decay))
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                _write(p_ema, p_ema.float32() * decay + p_model.float32() * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """torch's ``get_swa_multi_avg_fn()``: a ``multi_avg_fn`` for the equal-weight average,
    ``avg.lerp_(p, 1 / (num_averaged + 1))`` in place (integer tensors raise, as torch's)."""

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if _is_float(averaged_param_list[0]):
            n = _count(num_averaged)
            # a tensor count: torch's 1 / (n + 1) is a float32 division; an int: a Python one
            weight = float(np.float32(1) / np.float32(n + 1)) if isinstance(num_averaged, jt.Var) else 1 / (n + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                _write(p_avg, lerp(p_avg.detach(), p_model.detach(), weight))
        elif isinstance(num_averaged, jt.Var):
            raise RuntimeError(_ADDCDIV_INT)
        else:
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """torch's ``get_ema_avg_fn(decay)``: an ``avg_fn`` returning ``decay*ema + (1-decay)*p``;
    ValueError for a decay outside [0, 1]."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """torch's ``get_swa_avg_fn()``: an ``avg_fn`` returning ``avg + (p - avg) / (num_averaged + 1)``
    (a float32 division; integer tensors divide as floats, as torch's true division)."""

    def swa_update(averaged_param, current_param, num_averaged):
        if not _is_float(averaged_param):  # torch's true division: integers become float32
            averaged_param, current_param = averaged_param.float32(), current_param.float32()
        diff = current_param - averaged_param
        count = num_averaged + 1
        if isinstance(count, jt.Var):
            count = float(count.item())  # exact in float32 for any realistic count
        return averaged_param + diff / count

    return swa_update


def _named_tensors(model: jt.Module):
    """``(parameters, buffers)`` of any Jittor module in torch's order: per submodule its Var
    attributes; buffers are the registered ones of shims modules and Jittor's own
    ``running_mean``/``running_var``/``num_batches_tracked`` elsewhere."""
    params: List[jt.Var] = []
    buffers: List[jt.Var] = []
    seen = set()
    for _, mod in model.named_modules():
        registered = mod.__dict__.get("_shim_buffers")
        for k, v in mod.__dict__.items():
            if not isinstance(k, str) or k.startswith("_") or not isinstance(v, jt.Var) or id(v) in seen:
                continue
            seen.add(id(v))
            is_buffer = k in registered if registered is not None else k in _JT_BUFFERS
            (buffers if is_buffer else params).append(v)
    return params, buffers


def _group_by_dtype(pairs) -> Dict[str, list]:
    """torch's ``_group_tensors_by_device_and_dtype``: pairs grouped by the averaged tensor's dtype,
    first-seen order."""
    groups: Dict[str, list] = {}
    for a, m in pairs:
        groups.setdefault(str(a.dtype), []).append((a, m))
    return groups


class AveragedModel(Module):
    """``torch.optim.swa_utils.AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None,
    use_buffers=False)``: a deep copy of ``model`` (``self.module``) whose parameters (and
    buffers with ``use_buffers``) ``update_parameters(model)`` averages; the first call copies.
    ``device`` is accepted and ignored (Jittor places Vars itself)."""

    def __init__(self, model: jt.Module, device=None, avg_fn: Optional[Callable] = None,
                 multi_avg_fn: Optional[Callable] = None, use_buffers: bool = False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", jt.zeros((), dtype=jt.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Forward pass: the averaged copy's."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: jt.Module) -> None:
        """Average ``model``'s parameters (and buffers with ``use_buffers``) into the copy, as
        torch: the first call copies them, later ones apply ``multi_avg_fn``/``avg_fn`` (or the
        equal-weight average); without ``use_buffers`` the copy's buffers follow ``model``'s."""
        self_params, self_buffers = _named_tensors(self.module)
        model_params, model_buffers = _named_tensors(model)
        if self.use_buffers:
            pairs = list(zip(itertools.chain(self_params, self_buffers), itertools.chain(model_params, model_buffers)))
        else:
            pairs = list(zip(self_params, model_params))
        n_averaged = _count(self.n_averaged)
        if n_averaged == 0:
            for p_averaged, p_model in pairs:
                _write(p_averaged, p_model.clone())
        else:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for group in _group_by_dtype(pairs).values():
                    averaged = [a for a, _ in group]
                    current = [m.detach() for _, m in group]
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(averaged, current, self.n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(averaged, current):
                            _write(p_averaged, avg_fn(p_averaged.detach(), p_model, self.n_averaged))
            else:
                for p_averaged, p_model in pairs:
                    _write(p_averaged, self.avg_fn(p_averaged.detach(), p_model.detach(), self.n_averaged))
        if not self.use_buffers:
            # the copy's buffers follow the source model's
            for b_swa, b_model in zip(self_buffers, model_buffers):
                _write(b_swa, b_model.clone())
        self.n_averaged.update(self.n_averaged + 1)
        jt.sync([self.n_averaged, *(a for a, _ in pairs), *self_buffers])


def _batch_norms(model: jt.Module) -> list:
    return [m for m in model.modules() if isinstance(m, _BatchNorm)]


def _reset_running_stats(bn) -> None:
    """torch's ``_BatchNorm.reset_running_stats``: mean 0, var 1, count 0 (when tracked)."""
    if getattr(bn, "running_mean", None) is not None:
        bn.running_mean.update(jt.zeros_like(bn.running_mean))
        bn.running_var.update(jt.ones_like(bn.running_var))
        bn.num_batches_tracked.update(jt.zeros_like(bn.num_batches_tracked))


def _set_training(model: jt.Module, mode: bool) -> None:
    if mode:
        model.train()
    else:
        model.eval()


def update_bn(loader, model: jt.Module, device=None) -> None:
    """torch's ``update_bn(loader, model, device=None)``: reset every BatchNorm's running
    statistics and recompute them as a cumulative average (momentum None) over one pass of
    ``loader`` (batches are tensors or lists/tuples whose first element is the input), in
    training mode, without gradients; momenta and the training flag are restored.  ``device``
    is accepted and ignored."""
    momenta = []
    for module in _batch_norms(model):
        _reset_running_stats(module)
        momenta.append((module, module.momentum))
    if not momenta:
        return
    was_training = model.training
    _set_training(model, True)
    for module, _ in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            model(input)
    for module, momentum in momenta:
        module.momentum = momentum
    _set_training(model, was_training)


class SWALR(LRScheduler):
    """``torch.optim.swa_utils.SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos',
    last_epoch=-1)``: anneals each group's lr to its ``swa_lr`` (stored in the group) over
    ``anneal_epochs`` steps, cosine or linear, then holds it; torch's recursive formula."""

    def __init__(self, optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> List[float]:
        """The lrs of this step: each group's lr moved towards ``swa_lr`` by the anneal function."""
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _update_lr(self, epoch=None) -> None:
        self._get_lr_called_within_step = True
        try:
            super()._update_lr(epoch)
        finally:
            self._get_lr_called_within_step = False

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> Dict[str, Any]:
        """Everything but the optimizer and the anneal function, as torch."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore a ``state_dict()`` (the anneal function from its strategy)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
