"""Normalization layers with torch's statistics: two-pass variance, unbiased running_var.

Jittor 1.3.11 computes variance in one pass (E[x²]−E[x]², which cancels catastrophically once
|mean|/std ≈ 1e3), keeps a biased ``running_var``, defaults ``InstanceNorm2d(affine=True)``,
has no ``track_running_stats`` and crashes on ``momentum=None``.  Here the variance is
``mean((x - mean)²)`` and the running statistics follow torch's update rule exactly.
"""
from __future__ import annotations

import numbers
from typing import Optional, Sequence

import jittor as jt
import numpy as np

from ..ops import functional as F
from ..ops._common import float_mean
from .module import Module

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "LayerNorm",
           "GroupNorm", "local_response_norm", "LocalResponseNorm", "rms_norm", "RMSNorm",
           "InstanceNorm3d"]


def _moments(x: jt.Var, dims: Sequence[int]):
    """Mean and biased variance over ``dims`` (keepdims), variance in two passes.

    The mean gets one correction pass (mean + mean(x - mean)): with |mean|/std ~ 1e3 a plain
    float32 mean is off by ~1e-5 * |mean|, which shows up after dividing by std.  Both sums
    accumulate in float64 on the CPU (:func:`~shims.ops._common.float_mean`): a batch statistic
    over 2^20 float32 terms added one after another was 44x torch's own float32 error."""
    dims = tuple(dims)
    mean = float_mean(x, dims, True)
    mean = mean + float_mean(x - mean, dims, True)
    xc = x - mean
    return mean, float_mean(xc * xc, dims, True)


def _channel_shape(x: jt.Var):
    return [1, x.shape[1]] + [1] * (x.ndim - 2)


def _affine(y: jt.Var, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _update_running(running: Optional[jt.Var], stat: jt.Var, factor: float) -> None:
    if running is not None:
        running.update(((1.0 - factor) * running + factor * stat.detach()).cast(running.dtype))


def _count(counter: jt.Var) -> None:
    """``num_batches_tracked += 1``, executed now: a counter that is never read would otherwise
    chain one pending op per step and grow Jittor's graph forever (measured: +2 Vars/step)."""
    counter.update(counter + 1)
    counter.sync()


def batch_norm(input: jt.Var, running_mean: Optional[jt.Var], running_var: Optional[jt.Var],
               weight: Optional[jt.Var] = None, bias: Optional[jt.Var] = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> jt.Var:
    """``torch.nn.functional.batch_norm``: batch statistics when ``training`` (running stats
    updated in place, ``running_var`` with the unbiased variance n/(n-1)), running statistics
    otherwise.  Statistics over every dim but 1."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2-D input, got shape {tuple(input.shape)}")
    dims = [0] + list(range(2, input.ndim))
    shape = _channel_shape(input)
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when training, "
                             f"got input size {tuple(input.shape)}")
        mean, var = _moments(input, dims)
        _update_running(running_mean, mean.reshape(-1), momentum)
        _update_running(running_var, var.reshape(-1) * (n / (n - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var are required when not training")
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    y = (input - mean) / jt.sqrt(var + eps)
    return _affine(y, weight, bias, shape)


def _init_norm_state(module, num_features: int, eps: float, momentum, affine: bool,
                     track_running_stats: bool) -> None:
    """The torch norm layers' common state: hyperparameters, affine weight/bias, and (when
    tracking) the running statistics as buffers under torch's names."""
    module.num_features, module.eps, module.momentum = num_features, eps, momentum
    module.affine, module.track_running_stats = affine, track_running_stats
    module.weight = jt.ones(num_features) if affine else None
    module.bias = jt.zeros(num_features) if affine else None
    if track_running_stats:
        module.register_buffer("running_mean", jt.zeros(num_features))
        module.register_buffer("running_var", jt.ones(num_features))
        module.register_buffer("num_batches_tracked", jt.zeros(1, dtype="int32"))


class _BatchNorm(Module):
    _ndims: Sequence[int] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None, dtype=None):
        super().__init__()
        _init_norm_state(self, num_features, eps, momentum, affine, track_running_stats)
        if not track_running_stats:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def execute(self, x: jt.Var) -> jt.Var:
        if x.ndim not in self._ndims:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(f'{n}-D' for n in self._ndims)} "
                             f"input, got shape {tuple(x.shape)}")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}): input has {x.shape[1]} channels")
        training = self.is_training()
        factor = 0.0 if self.momentum is None else self.momentum
        if training and self.track_running_stats:
            _count(self.num_batches_tracked)
            if self.momentum is None:  # cumulative moving average, as torch
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = training or not self.track_running_stats
        return batch_norm(x, self.running_mean if training or not use_batch else None,
                          self.running_var if training or not use_batch else None,
                          self.weight, self.bias, use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """``torch.nn.BatchNorm1d`` ((N,C) or (N,C,L)); see :class:`BatchNorm2d`."""
    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``torch.nn.BatchNorm2d``: two-pass batch variance, unbiased ``running_var``,
    ``momentum=None`` (cumulative average), ``track_running_stats``, ``num_batches_tracked``;
    running statistics are buffers (never trained)."""
    _ndims = (4,)


class BatchNorm3d(_BatchNorm):
    """``torch.nn.BatchNorm3d``; see :class:`BatchNorm2d`."""
    _ndims = (5,)


def instance_norm(input: jt.Var, running_mean: Optional[jt.Var] = None,
                  running_var: Optional[jt.Var] = None, weight: Optional[jt.Var] = None,
                  bias: Optional[jt.Var] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> jt.Var:
    """``torch.nn.functional.instance_norm``: per-sample, per-channel statistics; running
    statistics (if given) are updated with the batch average of the instance statistics
    (unbiased variance), or used instead when ``use_input_stats=False``."""
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected (N,C,...) input, got shape {tuple(input.shape)}")
    dims = list(range(2, input.ndim))
    shape = _channel_shape(input)
    if use_input_stats:
        mean, var = _moments(input, dims)
        if running_mean is not None or running_var is not None:
            n = input.numel() // (input.shape[0] * input.shape[1])
            _update_running(running_mean, mean.mean(dims=tuple([0] + dims)), momentum)
            _update_running(running_var, (var * (n / max(n - 1, 1))).mean(dims=tuple([0] + dims)), momentum)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    y = (input - mean) / jt.sqrt(var + eps)
    return _affine(y, weight, bias, shape)


class _InstanceNorm(Module):
    _ndim = 4

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None, dtype=None):
        super().__init__()
        _init_norm_state(self, num_features, eps, momentum, affine, track_running_stats)

    def execute(self, x: jt.Var) -> jt.Var:
        squeeze = x.ndim == self._ndim - 1
        if squeeze:
            x = x.unsqueeze(0)
        if x.ndim != self._ndim:
            raise ValueError(f"{type(self).__name__}: expected {self._ndim - 1}-D or {self._ndim}-D "
                             f"input, got shape {tuple(x.shape)}")
        track = self.track_running_stats
        use_input = self.is_training() or not track
        if track and self.is_training():
            _count(self.num_batches_tracked)
        y = instance_norm(x, self.running_mean if track else None,
                          self.running_var if track else None, self.weight, self.bias,
                          use_input, self.momentum, self.eps)
        return y.squeeze(0) if squeeze else y


class InstanceNorm1d(_InstanceNorm):
    """``torch.nn.InstanceNorm1d``; see :class:`InstanceNorm2d`."""
    _ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """``torch.nn.InstanceNorm2d``: ``affine=False`` and ``track_running_stats=False`` by default
    (Jittor's defaults to affine); with tracking, eval uses the running statistics."""
    _ndim = 4


def layer_norm(input: jt.Var, normalized_shape, weight: Optional[jt.Var] = None,
               bias: Optional[jt.Var] = None, eps: float = 1e-5) -> jt.Var:
    """``torch.nn.functional.layer_norm`` (two-pass variance over the trailing dims)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ValueError(f"layer_norm: input shape {tuple(input.shape)} does not end with "
                         f"normalized_shape {shape}")
    dims = list(range(input.ndim - len(shape), input.ndim))
    mean, var = _moments(input, dims)
    y = (input - mean) / jt.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


class LayerNorm(Module):
    """``torch.nn.LayerNorm`` (``elementwise_affine``, ``bias=False`` supported)."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = ((normalized_shape,) if isinstance(normalized_shape, numbers.Integral)
                                 else tuple(normalized_shape))
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = jt.ones(self.normalized_shape) if elementwise_affine else None
        self.bias = jt.zeros(self.normalized_shape) if elementwise_affine and bias else None

    def execute(self, x: jt.Var) -> jt.Var:
        return layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


def group_norm(input: jt.Var, num_groups: int, weight: Optional[jt.Var] = None,
               bias: Optional[jt.Var] = None, eps: float = 1e-5) -> jt.Var:
    """``torch.nn.functional.group_norm`` (two-pass variance per (sample, group))."""
    N, C = input.shape[0], input.shape[1]
    if C % num_groups:
        raise ValueError(f"group_norm: {C} channels are not divisible by num_groups={num_groups}")
    g = input.reshape([N, num_groups, -1])
    mean, var = _moments(g, [2])
    y = ((g - mean) / jt.sqrt(var + eps)).reshape(input.shape)
    return _affine(y, weight, bias, _channel_shape(input))


class GroupNorm(Module):
    """``torch.nn.GroupNorm``."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} must be divisible by "
                             f"num_groups={num_groups}")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = jt.ones(num_channels) if affine else None
        self.bias = jt.zeros(num_channels) if affine else None

    def execute(self, x: jt.Var) -> jt.Var:
        return group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """``F.local_response_norm``: ``x / (k + alpha * mean of x^2 over size channels)^beta``
    (torch's zero-padded channel window, average over ``size``)."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    sq = input * input
    c = int(input.shape[1])
    pad_lo, pad_hi = size // 2, (size - 1) // 2
    sq = sq.reshape(int(input.shape[0]), c, -1)
    padded = F.pad(sq, (0, 0, pad_lo, pad_hi))
    win = padded[:, 0:c]
    for i in range(1, size):
        win = win + padded[:, i:i + c]
    div = (win / size * alpha + k) ** beta
    return input / div.reshape(input.shape)


class LocalResponseNorm(Module):
    """``torch.nn.LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def execute(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)


def rms_norm(input, normalized_shape, weight=None, eps: Optional[float] = None):
    """``F.rms_norm``: ``x / sqrt(mean(x^2 over the last dims) + eps) * weight`` (eps: the dtype's
    machine epsilon by default, as torch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if eps is None:
        eps = float(np.finfo(str(input.dtype) if str(input.dtype) != "bfloat16" else "float32").eps)
    y = input / (float_mean(input * input, tuple(dims), True) + eps).sqrt()
    return y if weight is None else y * weight


class RMSNorm(Module):
    """``torch.nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)``."""

    def __init__(self, normalized_shape, eps: Optional[float] = None, elementwise_affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = jt.ones(self.normalized_shape) if elementwise_affine else None

    def execute(self, input):
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)


class InstanceNorm3d(_InstanceNorm):
    """``torch.nn.InstanceNorm3d``: (N, C, D, H, W) or unbatched (C, D, H, W)."""
    _ndim = 5
