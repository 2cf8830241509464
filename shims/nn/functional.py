"""Padding, activations, resizing and gradient clipping with torch's signatures and defaults.

Jittor 1.3.11: ``ReflectionPad2d`` rejects a tuple, ``leaky_relu`` calls the slope ``scale``,
``interpolate`` defaults to bilinear and maps non-integer scale factors by the size ratio,
``Upsample`` has no ``size=``, and there is no ``nn.utils.clip_grad_norm_``/``clip_grad_value_``
(these clip torch's ``.grad``, :mod:`shims.autograd`).
"""
from __future__ import annotations

import math
from typing import List, Optional

import numpy as np

import jittor as jt
from jittor import nn as jnn

from .module import Module
from .pooling import adaptive_avg_pool2d

__all__ = ["ReflectionPad2d", "ReplicationPad2d", "leaky_relu", "LeakyReLU", "interpolate",
           "Upsample", "clip_grad_norm_", "clip_grad_value_"]


def _pad4(padding, cls: str):
    if isinstance(padding, (int, np.integer)):
        return (int(padding),) * 4
    if isinstance(padding, (tuple, list)) and len(padding) == 4:
        return tuple(int(p) for p in padding)
    raise TypeError(f"{cls}: padding must be an int or a 4-tuple (left, right, top, bottom), got {padding!r}")


class ReflectionPad2d(Module):
    """``torch.nn.ReflectionPad2d`` with an int or a (left, right, top, bottom) tuple."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pad4(padding, "ReflectionPad2d")

    def execute(self, x: jt.Var) -> jt.Var:
        left, right, top, bottom = self.padding
        if max(left, right) >= x.shape[-1] or max(top, bottom) >= x.shape[-2]:
            raise ValueError(f"ReflectionPad2d: padding {self.padding} must be smaller than the "
                             f"input's spatial size {tuple(x.shape[-2:])}")
        return jnn.pad(x, self.padding, mode="reflect")


class ReplicationPad2d(Module):
    """``torch.nn.ReplicationPad2d`` with an int or a 4-tuple."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pad4(padding, "ReplicationPad2d")

    def execute(self, x: jt.Var) -> jt.Var:
        return jnn.pad(x, self.padding, mode="replicate")


def leaky_relu(input: jt.Var, negative_slope: float = 0.01, inplace: bool = False) -> jt.Var:
    """``torch.nn.functional.leaky_relu`` (``inplace`` accepted; Jittor has no aliasing)."""
    return jt.ternary(input > 0, input, input * negative_slope)


class LeakyReLU(Module):
    """``torch.nn.LeakyReLU(negative_slope=0.01, inplace=False)``."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def execute(self, x: jt.Var) -> jt.Var:
        return leaky_relu(x, self.negative_slope)


def _source_coords(in_size: int, out_size: int, scale_factor: Optional[float], mode: str,
                   align_corners: Optional[bool]):
    """torch's source coordinate of every output index along one axis (float32 arithmetic)."""
    dst = np.arange(out_size, dtype=np.float32)
    if mode in ("nearest", "nearest-exact"):
        scale = np.float32(1.0 / scale_factor) if scale_factor else np.float32(in_size / out_size)
        off = np.float32(0.5) if mode == "nearest-exact" else np.float32(0.0)
        idx = np.floor((dst + off) * scale).astype(np.int64)
        return np.minimum(idx, in_size - 1), None
    if align_corners:
        scale = np.float32((in_size - 1) / (out_size - 1)) if out_size > 1 else np.float32(0)
        src = dst * scale
    else:
        scale = np.float32(1.0 / scale_factor) if scale_factor else np.float32(in_size / out_size)
        src = np.maximum(scale * (dst + np.float32(0.5)) - np.float32(0.5), np.float32(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam = (src - i0).astype(np.float32)
    return i0, (i1, lam)


def _gather(x: jt.Var, axis: int, idx: np.ndarray) -> jt.Var:
    shape = list(x.shape)
    shape[axis] = len(idx)
    exprs = [f"i{d}" for d in range(x.ndim)]
    exprs[axis] = f"@e0(i{axis})"
    return x.reindex(shape, exprs, extras=[jt.array(idx.astype(np.int32))])


def _resize_axis(x: jt.Var, axis: int, out_size: int, scale_factor, mode, align_corners) -> jt.Var:
    i0, linear = _source_coords(x.shape[axis], out_size, scale_factor, mode, align_corners)
    if linear is None:
        return _gather(x, axis, i0)
    i1, lam = linear
    bshape = [1] * x.ndim
    bshape[axis] = out_size
    l1 = jt.array(lam.reshape(bshape)).cast(x.dtype)
    return _gather(x, axis, i0) * (1 - l1) + _gather(x, axis, i1) * l1


_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input: jt.Var, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> jt.Var:
    """``torch.nn.functional.interpolate`` with torch's defaults and coordinate rules.

    Modes ``nearest`` (default), ``nearest-exact``, ``linear``/``bilinear``/``trilinear``
    (``align_corners``), ``area``.  A ``scale_factor`` gives ``floor(in * s)`` outputs and, unless
    ``recompute_scale_factor=True``, maps coordinates by ``1/s`` exactly as torch does.
    """
    if antialias:
        raise NotImplementedError("shims.nn.interpolate: antialias=True is not supported")
    nsp = input.ndim - 2
    if nsp < 1:
        raise ValueError(f"interpolate: expected (N,C,...) input, got shape {tuple(input.shape)}")
    if mode in _LINEAR and input.ndim != _LINEAR[mode]:
        raise ValueError(f"interpolate: mode '{mode}' needs a {_LINEAR[mode]}-D input, "
                         f"got shape {tuple(input.shape)}")
    if mode not in ("nearest", "nearest-exact", "area", *_LINEAR):
        raise NotImplementedError(f"shims.nn.interpolate: mode '{mode}' is not supported")
    if align_corners is not None and mode not in _LINEAR:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: exactly one of size and scale_factor must be given")
    in_sizes = list(input.shape[2:])
    if size is not None:
        sizes = [int(size)] * nsp if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        scales = [None] * nsp
    else:
        scales = ([float(scale_factor)] * nsp if isinstance(scale_factor, (int, float))
                  else [float(s) for s in scale_factor])
        sizes = [int(math.floor(n * s)) for n, s in zip(in_sizes, scales)]
        if recompute_scale_factor:
            scales = [None] * nsp
    if len(sizes) != nsp or min(sizes) <= 0:
        raise ValueError(f"interpolate: output size {sizes} does not fit input {tuple(input.shape)}")
    if mode == "area":
        if nsp != 2:
            raise NotImplementedError("shims.nn.interpolate: mode='area' supports 4-D input only")
        return adaptive_avg_pool2d(input, sizes)
    out = input
    for d in range(nsp):
        out = _resize_axis(out, 2 + d, sizes[d], scales[d], mode, align_corners)
    return out


class Upsample(Module):
    """``torch.nn.Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None)``."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def execute(self, x: jt.Var) -> jt.Var:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)


def _grads_of(parameters) -> List[jt.Var]:
    params = [parameters] if isinstance(parameters, jt.Var) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None, *, optimizer=None) -> jt.Var:
    """``torch.nn.utils.clip_grad_norm_``: scale the ``.grad`` of ``parameters`` in place by
    ``min(1, max_norm / (total + 1e-6))``, ``total`` the ``norm_type`` norm (p or ``inf``) of all
    gradients together, and return ``total``.  Parameters whose ``.grad`` is None are left out,
    as in torch.  ``optimizer=`` (jtport's earlier spelling, when Jittor's optimizers held the
    gradients) is accepted and not needed."""
    grads = _grads_of(parameters)
    if not grads:
        return jt.zeros(1)
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        total = jt.concat([g.abs().max().reshape([1]) for g in grads]).max()
    else:
        total = jt.concat([(g.abs() ** norm_type).sum().reshape([1]) for g in grads]).sum() ** (1.0 / norm_type)
    if error_if_nonfinite and not np.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients is non-finite")
    coef = jt.minimum(float(max_norm) / (total + 1e-6), 1.0)
    for g in grads:
        g.update(g * coef)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """``torch.nn.utils.clip_grad_value_``: clamp each ``.grad`` of ``parameters`` to
    ``[-clip_value, clip_value]`` in place."""
    v = float(clip_value)
    for g in _grads_of(parameters):
        g.update(g.clamp(-v, v))
