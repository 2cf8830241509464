"""torch's activations Jittor lacks (or builds differently): ``CELU``, ``SELU``, ``GLU``,
``Hardtanh``, ``Hardshrink``, ``Softshrink``, ``Hardsigmoid``, ``Hardswish``, ``LogSigmoid``,
``Softsign``, ``Tanhshrink``, ``Threshold``, ``Mish``, ``RReLU``; softmax layers with torch's implicit
``dim`` rule (``Softmax``, ``LogSoftmax``, ``Softmin``, ``Softmax2d``; the functions too);
``gumbel_softmax``.
"""
from __future__ import annotations

import warnings
from typing import Optional

import jittor as jt

from ..ops import functional as F
from ..ops.pointwise import clamp
from .module import Module

__all__ = [
    "softmax", "log_softmax", "softmin", "hardtanh", "CELU", "SELU", "GLU", "Hardtanh", "Hardshrink",
    "Softshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "Softsign", "Tanhshrink", "Threshold", "Mish",
    "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "rrelu", "RReLU", "gumbel_softmax"
]


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """``F.softmax``; without ``dim``, torch's implicit choice (0 for 0-, 1- and 3-D input, else 1)."""
    return F.softmax(input, _softmax_dim("softmax", input.ndim) if dim is None else dim, dtype)


def log_softmax(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """``F.log_softmax``; without ``dim``, torch's implicit choice."""
    return F.log_softmax(input, _softmax_dim("log_softmax", input.ndim) if dim is None else dim, dtype)


def softmin(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """``F.softmin``; without ``dim``, torch's implicit choice."""
    return F.softmin(input, _softmax_dim("softmin", input.ndim) if dim is None else dim, dtype)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """``F.hardtanh``."""
    return clamp(input, min_val, max_val)


class _Act(Module):
    fn = None

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def execute(self, input):
        return type(self).fn(input)


class CELU(Module):
    """``torch.nn.CELU(alpha=1.0, inplace=False)``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def execute(self, input):
        return F.celu(input, self.alpha)


class SELU(_Act):
    """``torch.nn.SELU(inplace=False)``."""

    fn = staticmethod(F.selu)


class Hardsigmoid(_Act):
    """``torch.nn.Hardsigmoid(inplace=False)``."""

    fn = staticmethod(F.hardsigmoid)


class Hardswish(_Act):
    """``torch.nn.Hardswish(inplace=False)``."""

    fn = staticmethod(F.hardswish)


class Mish(_Act):
    """``torch.nn.Mish(inplace=False)`` (Jittor's calls a missing ``jt.softplus``)."""

    fn = staticmethod(F.mish)


class LogSigmoid(_Act):
    """``torch.nn.LogSigmoid()``."""

    fn = staticmethod(F.logsigmoid)


class Softsign(_Act):
    """``torch.nn.Softsign()``."""

    fn = staticmethod(F.softsign)


class Tanhshrink(_Act):
    """``torch.nn.Tanhshrink()``."""

    fn = staticmethod(F.tanhshrink)


class GLU(Module):
    """``torch.nn.GLU(dim=-1)``."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def execute(self, input):
        return F.glu(input, self.dim)


class Hardtanh(Module):
    """``torch.nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError("max_val must be greater than min_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def execute(self, input):
        return hardtanh(input, self.min_val, self.max_val)


class Hardshrink(Module):
    """``torch.nn.Hardshrink(lambd=0.5)``."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def execute(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(Hardshrink):
    """``torch.nn.Softshrink(lambd=0.5)``."""

    def execute(self, input):
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    """``torch.nn.Threshold(threshold, value, inplace=False)``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def execute(self, input):
        return F.threshold(input, self.threshold, self.value)


class Softmax(Module):
    """``torch.nn.Softmax(dim=None)`` (no ``dim``: torch's implicit choice at call time)."""

    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = dim

    def execute(self, input):
        return softmax(input, self.dim)


class LogSoftmax(Softmax):
    """``torch.nn.LogSoftmax(dim=None)``."""

    def execute(self, input):
        return log_softmax(input, self.dim)


class Softmin(Softmax):
    """``torch.nn.Softmin(dim=None)``."""

    def execute(self, input):
        return softmin(input, self.dim)


class Softmax2d(Module):
    """``torch.nn.Softmax2d()``: softmax over channels of (N, C, H, W) or (C, H, W)."""

    def execute(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """``F.rrelu``: slope ``(lower + upper) / 2`` for negatives in eval; a uniform random slope per
    element in training (Jittor's draws)."""
    a = jt.rand(tuple(input.shape)) * (upper - lower) + lower if training else (lower + upper) / 2
    return jt.ternary(input >= 0, input, input * a)


class RReLU(Module):
    """``torch.nn.RReLU(lower=1/8, upper=1/3, inplace=False)``."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def execute(self, input):
        return rrelu(input, self.lower, self.upper, self.is_training())


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """``F.gumbel_softmax``: softmax of ``(logits + Gumbel noise) / tau`` (Jittor's draws);
    ``hard``: the one-hot argmax in the forward pass, the soft gradient (straight-through)."""
    u = jt.rand(tuple(logits.shape))
    gumbels = -(-(u + 1e-20).log()).log()  # -log(Exp(1)) draws
    y = F.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y
    idx = y.argmax(dim)[0] if isinstance(y.argmax(dim), tuple) else y.argmax(dim)
    n = int(y.shape[dim])
    onehot = (idx.unsqueeze(dim) == jt.arange(n).reshape([n if i == dim % y.ndim else 1 for i in range(y.ndim)]))
    y_hard = onehot.cast(y.dtype)
    return y_hard - y.stop_grad() + y
