"""``torch.nn.init`` functions Jittor lacks."""
from __future__ import annotations

import math

import jittor as jt
import numpy as np

__all__ = ['zeros_', 'ones_', 'xavier_normal_', 'orthogonal_']


def zeros_(tensor):
    """``nn.init.zeros_``."""
    return tensor.assign(jt.zeros_like(tensor))


def ones_(tensor):
    """``nn.init.ones_``."""
    return tensor.assign(jt.ones_like(tensor))


def _fans(tensor):
    shape = [int(s) for s in tensor.shape]
    if len(shape) < 2:
        raise ValueError("fan in/out need a tensor with at least 2 dims")
    rf = 1
    for s in shape[2:]:
        rf *= s
    return shape[1] * rf, shape[0] * rf


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """``nn.init.xavier_normal_``: N(0, gain^2 * 2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return tensor.assign(jt.randn(tuple(tensor.shape), dtype=tensor.dtype) * std)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """``nn.init.orthogonal_``: torch's recipe, a QR of a normal (rows, numel/rows) matrix (the
    transpose when wider than tall) with the signs of R's diagonal, times ``gain``."""
    if tensor.ndim < 2:
        raise ValueError("orthogonal_: only tensors with 2 or more dimensions are supported")
    rows = int(tensor.shape[0])
    cols = int(np.prod([int(s) for s in tensor.shape])) // rows
    flat = jt.randn(rows, cols).numpy().astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return tensor.assign(jt.array((gain * q).reshape(tuple(tensor.shape)).astype(str(tensor.dtype))))
