"""torch layers Jittor lacks (or builds differently), as thin modules over torch-exact functions.

Activations (``CELU``, ``SELU``, ``GLU``, ``Hardtanh``, ``Hardshrink``, ``Softshrink``,
``Hardsigmoid``, ``Hardswish``, ``LogSigmoid``, ``Softsign``, ``Tanhshrink``, ``Threshold``,
``Mish``), softmax layers with torch's implicit ``dim`` rule (``Softmax``, ``LogSoftmax``,
``Softmin``, ``Softmax2d``; ``softmax``/``log_softmax``/``softmin`` functions too), losses
(``NLLLoss`` with ``weight``/``ignore_index``/``reduction``, ``HuberLoss``, ``SmoothL1Loss``,
``MarginRankingLoss``, ``SoftMarginLoss``, ``CosineEmbeddingLoss``, ``HingeEmbeddingLoss``,
``TripletMarginLoss``, ``GaussianNLLLoss``, ``PoissonNLLLoss``, ``MultiLabelSoftMarginLoss``,
``MultiMarginLoss`` and their functions), 1-D pooling layers, padding layers of every rank and
mode, ``LocalResponseNorm``, ``Unflatten``, ``PixelUnshuffle``, ``CosineSimilarity``,
``PairwiseDistance``, ``UpsamplingBilinear2d`` (torch's ``align_corners=True``), ``Fold``/``Unfold``,
``ParameterList``/``ParameterDict``.
"""
from __future__ import annotations

import math
import warnings
from typing import Optional

import jittor as jt
import numpy as np

from ..ops import functional as F
from ..ops.functional import _legacy_reduction
from ..ops.pointwise import clamp
from .functional import interpolate
from .module import _BUFFERS, Module
from .norm import _InstanceNorm
from .pooling import adaptive_max_pool2d

__all__ = [
    "softmax", "log_softmax", "softmin", "margin_ranking_loss", "soft_margin_loss", "cosine_embedding_loss",
    "hinge_embedding_loss", "triplet_margin_loss", "gaussian_nll_loss", "poisson_nll_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "local_response_norm", "adaptive_max_pool1d", "hardtanh",
    "CELU", "SELU", "GLU", "Hardtanh", "Hardshrink", "Softshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "Softsign",
    "Tanhshrink", "Threshold", "Mish", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "NLLLoss", "HuberLoss",
    "MSELoss", "L1Loss",
    "SmoothL1Loss", "MarginRankingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss",
    "TripletMarginLoss", "GaussianNLLLoss", "PoissonNLLLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
    "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ZeroPad1d", "ZeroPad3d", "ReflectionPad1d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "LocalResponseNorm", "Unflatten",
    "PixelUnshuffle", "CosineSimilarity", "PairwiseDistance", "UpsamplingBilinear2d", "Fold", "Unfold",
    "ParameterList", "ParameterDict", "rms_norm", "RMSNorm", "rrelu", "RReLU", "lp_pool1d", "lp_pool2d", "LPPool1d",
    "LPPool2d", "conv_transpose1d", "ConvTranspose1d", "channel_shuffle", "ChannelShuffle",
    "triplet_margin_with_distance_loss", "TripletMarginWithDistanceLoss", "multilabel_margin_loss",
    "MultiLabelMarginLoss", "upsample_bilinear", "upsample_nearest", "gumbel_softmax", "Buffer", "InstanceNorm3d",
]


# -- softmax with torch's implicit dim --------------------------------------------------------

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


# -- losses -----------------------------------------------------------------------------------

def _reduce(loss, reduction: str):
    return F._reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """``F.margin_ranking_loss``: ``max(0, -y (x1 - x2) + margin)``."""
    loss = jt.maximum(-target * (input1 - input2) + margin, 0.0)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.soft_margin_loss``: ``log(1 + exp(-y x))``."""
    return _reduce(F.softplus(-target * input), _legacy_reduction(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    """``F.cosine_embedding_loss``: ``1 - cos`` for y = 1, ``max(0, cos - margin)`` for y = -1."""
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    m1 = (input1 * input1).sum(-1) + eps
    m2 = (input2 * input2).sum(-1) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = jt.zeros_like(cos)
    pos = jt.ternary(target == 1, 1 - cos, zeros)
    neg = jt.ternary(target == -1, jt.maximum(cos - margin, 0.0), zeros)
    return _reduce(pos + neg, _legacy_reduction(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``F.hinge_embedding_loss``: ``x`` for y = 1, ``max(0, margin - x)`` for y = -1."""
    zeros = jt.zeros_like(input)
    out = jt.ternary(target != 1, jt.maximum(margin - input, 0.0), zeros) + jt.ternary(target != -1, input, zeros)
    return _reduce(out, _legacy_reduction(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.triplet_margin_loss``: ``max(d(a, p) - d(a, n) + margin, 0)`` (``swap``: the smaller of
    ``d(a, n)`` and ``d(p, n)``)."""
    d_ap = F.pairwise_distance(anchor, positive, p, eps)
    d_an = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_an = jt.minimum(d_an, F.pairwise_distance(positive, negative, p, eps))
    loss = jt.maximum(margin + d_ap - d_an, 0.0)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


class _ClampKeepGrad(jt.Function):
    """``var.clamp(min=eps)`` whose gradient passes through unchanged (torch clamps under no_grad)."""

    def execute(self, x, eps):
        return jt.maximum(x, eps)

    def grad(self, g):
        return g, None


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
    """``F.gaussian_nll_loss``: ``0.5 (log var + (x - t)^2 / var)`` (+ ``0.5 log 2 pi`` if ``full``);
    ``var`` is clamped to ``eps`` without stopping its gradient, as torch."""
    if var.ndim == input.ndim - 1 or (var.ndim == input.ndim and int(var.shape[-1]) == 1
                                       and int(input.shape[-1]) != 1):
        if var.ndim == input.ndim - 1:
            var = var.unsqueeze(-1)
    if (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    var = _ClampKeepGrad()(var, jt.array(float(eps)).cast(var.dtype))
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """``F.poisson_nll_loss``: ``exp(x) - t x`` (``log_input``) or ``x - t log(x + eps)``, plus
    Stirling's term for ``t > 1`` when ``full``."""
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = jt.ternary(target > 1, target, jt.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + jt.ternary(target > 1, stirling, jt.zeros_like(stirling))
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """``F.multilabel_soft_margin_loss``: the class mean of the binary logistic losses."""
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.ndim - 1) / int(input.shape[-1])
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                      reduce=None, reduction: str = "mean"):
    """``F.multi_margin_loss``: ``sum_{j != y} max(0, margin - x[y] + x[j])^p / C`` per sample."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    t = target.reshape(-1)
    c = int(x.shape[1])
    onehot = (jt.arange(c).reshape(1, c) == t.reshape(-1, 1))
    x_y = (x * onehot.cast(x.dtype)).sum(1, keepdims=True)
    m = jt.maximum(margin - x_y + x, 0.0)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * (onehot.cast(x.dtype) * weight.reshape(1, c)).sum(1, keepdims=True)
    m = jt.ternary(onehot, jt.zeros_like(m), m)
    loss = m.sum(1) / c
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class NLLLoss(_Loss):
    """``torch.nn.NLLLoss(weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction='mean')`` for (N, C) and (N, C, d1, ...) log-probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def execute(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    """``torch.nn.MSELoss(size_average=None, reduce=None, reduction='mean')``: every reduction,
    accumulated as torch accumulates (``shims.ops._common.float_sum``; Jittor's own sums float32
    terms one after another)."""

    def execute(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """``torch.nn.L1Loss(size_average=None, reduce=None, reduction='mean')``, as :class:`MSELoss`."""

    def execute(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class HuberLoss(_Loss):
    """``torch.nn.HuberLoss(reduction='mean', delta=1.0)``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def execute(self, input, target):
        return F.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """``torch.nn.SmoothL1Loss(size_average=None, reduce=None, reduction='mean', beta=1.0)``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def execute(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class MarginRankingLoss(_Loss):
    """``torch.nn.MarginRankingLoss(margin=0.0, size_average=None, reduce=None, reduction='mean')``."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def execute(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``torch.nn.SoftMarginLoss``."""

    def execute(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``torch.nn.CosineEmbeddingLoss(margin=0.0, ...)``."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def execute(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``torch.nn.HingeEmbeddingLoss(margin=1.0, ...)``."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def execute(self, input, target):
        return hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``torch.nn.TripletMarginLoss(margin=1.0, p=2.0, eps=1e-6, swap=False, ...)``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def execute(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps, self.swap,
                                   reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """``torch.nn.GaussianNLLLoss(*, full=False, eps=1e-6, reduction='mean')``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def execute(self, input, target, var):
        return gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(_Loss):
    """``torch.nn.PoissonNLLLoss(log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
    reduction='mean')``."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def execute(self, log_input, target):
        return poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """``torch.nn.MultiLabelSoftMarginLoss(weight=None, ...)``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def execute(self, input, target):
        return multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """``torch.nn.MultiMarginLoss(p=1, margin=1.0, weight=None, ...)``."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.p, self.margin = p, margin
        self.register_buffer("weight", weight)

    def execute(self, input, target):
        return multi_margin_loss(input, target, self.p, self.margin, self.weight, reduction=self.reduction)


# -- activations ------------------------------------------------------------------------------

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


# -- pooling ----------------------------------------------------------------------------------

def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """``F.adaptive_max_pool1d`` via ``shims.nn.adaptive_max_pool2d`` on a height-1 map."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    y = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return y[0].squeeze(-2), y[1].squeeze(-2)
    return y.squeeze(-2)


class MaxPool1d(Module):
    """``torch.nn.MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def execute(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool1d(Module):
    """``torch.nn.AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def execute(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveAvgPool1d(Module):
    """``torch.nn.AdaptiveAvgPool1d(output_size)``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def execute(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(Module):
    """``torch.nn.AdaptiveMaxPool1d(output_size, return_indices=False)``."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def execute(self, input):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


# -- padding ----------------------------------------------------------------------------------

def _ntuple(padding, n: int, cls: str):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(int(p) for p in padding)
    if len(padding) != 2 * n:
        raise ValueError(f"{cls}: padding must be an int or a {2 * n}-tuple, got {padding}")
    return padding


class _PadNd(Module):
    n = 1
    mode = "constant"

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        self.padding = _ntuple(padding, self.n, type(self).__name__)
        self.value = value

    def execute(self, input):
        return F.pad(input, self.padding, self.mode, self.value if self.mode == "constant" else None)


def _pad_class(name: str, n: int, mode: str, doc: str, with_value: bool):
    def __init__(self, padding, value: float = 0.0):
        _PadNd.__init__(self, padding, value)

    def __init_novalue__(self, padding):
        _PadNd.__init__(self, padding, 0.0)

    cls = type(name, (_PadNd,), {"n": n, "mode": mode, "__doc__": doc,
                                  "__init__": __init__ if with_value else __init_novalue__})
    return cls


ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "``torch.nn.ConstantPad1d(padding, value)``.", True)
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "``torch.nn.ConstantPad2d(padding, value)`` (any float "
                           "value; Jittor's rejects one).", True)
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", "``torch.nn.ConstantPad3d(padding, value)``.", True)
ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", "``torch.nn.ZeroPad1d(padding)``.", False)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", "``torch.nn.ZeroPad3d(padding)``.", False)
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "``torch.nn.ReflectionPad1d(padding)``.", False)
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", "``torch.nn.ReflectionPad3d(padding)``.", False)
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "``torch.nn.ReplicationPad1d(padding)``.", False)
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", "``torch.nn.ReplicationPad3d(padding)``.", False)
CircularPad1d = _pad_class("CircularPad1d", 1, "circular", "``torch.nn.CircularPad1d(padding)``.", False)
CircularPad2d = _pad_class("CircularPad2d", 2, "circular", "``torch.nn.CircularPad2d(padding)``.", False)
CircularPad3d = _pad_class("CircularPad3d", 3, "circular", "``torch.nn.CircularPad3d(padding)``.", False)


# -- misc layers ------------------------------------------------------------------------------

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


class Unflatten(Module):
    """``torch.nn.Unflatten(dim, unflattened_size)``."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def execute(self, input):
        from ..ops.shape import unflatten
        return unflatten(input, self.dim, self.unflattened_size)


class PixelUnshuffle(Module):
    """``torch.nn.PixelUnshuffle(downscale_factor)``."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def execute(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)


class CosineSimilarity(Module):
    """``torch.nn.CosineSimilarity(dim=1, eps=1e-8)``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def execute(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``torch.nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False)``."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def execute(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class UpsamplingBilinear2d(Module):
    """``torch.nn.UpsamplingBilinear2d(size=None, scale_factor=None)``: bilinear with
    ``align_corners=True`` (Jittor's uses False)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def execute(self, input):
        return interpolate(input, self.size, self.scale_factor, mode="bilinear", align_corners=True)


class Unfold(Module):
    """``torch.nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)``."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def execute(self, input):
        return jt.nn.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """``torch.nn.Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)``."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def execute(self, input):
        return jt.nn.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


# -- parameter containers ---------------------------------------------------------------------

class ParameterList(Module):
    """``torch.nn.ParameterList``: parameters under the keys ``0``, ``1``, ... (as torch's
    ``state_dict``); indexing, ``len``, iteration, ``append``, ``extend``."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_shim_n"] = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self.__dict__["_shim_n"]

    def _key(self, idx: int) -> str:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return [self[i] for i in range(len(self))[idx]]
        return self.__dict__[self._key(idx)]

    def __setitem__(self, idx: int, param) -> None:
        object.__setattr__(self, self._key(idx), param)

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def append(self, value):
        """Add ``value`` at the end."""
        object.__setattr__(self, str(len(self)), value)
        self.__dict__["_shim_n"] += 1
        return self

    def extend(self, values):
        """Append each of ``values``."""
        for v in values:
            self.append(v)
        return self

    def execute(self, *args, **kw):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """``torch.nn.ParameterDict``: parameters under their keys; a dict's methods."""

    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__["_shim_keys"] = []
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        if key not in self.__dict__["_shim_keys"]:
            raise KeyError(key)
        return self.__dict__[key]

    def __setitem__(self, key: str, value) -> None:
        if key not in self.__dict__["_shim_keys"]:
            self.__dict__["_shim_keys"].append(key)
        object.__setattr__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self.__dict__["_shim_keys"].remove(key)
        object.__delattr__(self, key)

    def __contains__(self, key) -> bool:
        return key in self.__dict__["_shim_keys"]

    def __len__(self) -> int:
        return len(self.__dict__["_shim_keys"])

    def __iter__(self):
        return iter(list(self.__dict__["_shim_keys"]))

    def keys(self):
        """Keys in insertion order."""
        return list(self.__dict__["_shim_keys"])

    def values(self):
        """Parameters in insertion order."""
        return [self[k] for k in self.keys()]

    def items(self):
        """(key, parameter) pairs in insertion order."""
        return [(k, self[k]) for k in self.keys()]

    def update(self, parameters) -> None:
        """Add entries from a mapping or an iterable of pairs."""
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in pairs:
            self[k] = v

    def pop(self, key: str):
        """Remove ``key`` and return its parameter."""
        v = self[key]
        del self[key]
        return v

    def execute(self, *args, **kw):
        raise RuntimeError("ParameterDict should not be called.")


# -- batch 2 ----------------------------------------------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps: Optional[float] = None):
    """``F.rms_norm``: ``x / sqrt(mean(x^2 over the last dims) + eps) * weight`` (eps: the dtype's
    machine epsilon by default, as torch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if eps is None:
        eps = float(np.finfo(str(input.dtype) if str(input.dtype) != "bfloat16" else "float32").eps)
    y = input / ((input * input).mean(dims, keepdims=True) + eps).sqrt()
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


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """``F.rrelu``: slope ``(lower + upper) / 2`` for negatives in eval; a uniform random slope per
    element in training (Jittor's draws)."""
    if training:
        a = jt.rand(tuple(input.shape)) * (upper - lower) + lower
    else:
        a = (lower + upper) / 2
    return jt.ternary(input >= 0, input, input * a)


class RReLU(Module):
    """``torch.nn.RReLU(lower=1/8, upper=1/3, inplace=False)``."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def execute(self, input):
        return rrelu(input, self.lower, self.upper, self.is_training())


def _lp(pooled_avg, kernel_elems: int, norm_type: float):
    """torch's ``(sign(avg) * relu(|avg|) * kernel_elems) ** (1/p)`` (= ``(avg * k) ** (1/p)``)."""
    return (pooled_avg * kernel_elems) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """``F.lp_pool1d``: ``(sum over the window of x^p)^(1/p)``."""
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    avg = F.avg_pool1d(input ** norm_type, k, stride, 0, ceil_mode)
    return _lp(avg, k, norm_type)


def lp_pool2d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """``F.lp_pool2d``."""
    from .pooling import avg_pool2d
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    avg = avg_pool2d(input ** norm_type, (kh, kw), stride, 0, ceil_mode)
    return _lp(avg, kh * kw, norm_type)


class LPPool1d(Module):
    """``torch.nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)``."""

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def execute(self, input):
        return lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """``torch.nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)``."""

    def execute(self, input):
        return lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1):
    """``F.conv_transpose1d`` via the torch-exact 2-d transposed convolution on a height-1 map."""
    from .conv import conv_transpose2d
    one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    y = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one(stride)), (0, one(padding)),
                         (0, one(output_padding)), groups, (1, one(dilation)))
    return y.squeeze(-2)


class ConvTranspose1d(Module):
    """``torch.nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1)``: ``weight`` (in, out/groups, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, one(kernel_size)
        self.stride, self.padding, self.output_padding = one(stride), one(padding), one(output_padding)
        self.groups, self.dilation = groups, one(dilation)
        k = 1.0 / math.sqrt((out_channels // groups) * self.kernel_size)
        self.weight = jt.init.uniform((in_channels, out_channels // groups, self.kernel_size), "float32", -k, k)
        self.bias = jt.init.uniform((out_channels,), "float32", -k, k) if bias else None

    def execute(self, input):
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                self.groups, self.dilation)


def channel_shuffle(input, groups: int):
    """``F.channel_shuffle``: (N, g*c, ...) -> channels interleaved across the ``g`` groups."""
    n, c = int(input.shape[0]), int(input.shape[1])
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


class ChannelShuffle(Module):
    """``torch.nn.ChannelShuffle(groups)``."""

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def execute(self, input):
        return channel_shuffle(input, self.groups)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean"):
    """``F.triplet_margin_with_distance_loss`` (default distance: ``pairwise_distance``)."""
    dist = distance_function if distance_function is not None else F.pairwise_distance
    d_ap = dist(anchor, positive)
    d_an = dist(anchor, negative)
    if swap:
        d_an = jt.minimum(d_an, dist(positive, negative))
    return _reduce(jt.maximum(margin + d_ap - d_an, 0.0), reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``torch.nn.TripletMarginWithDistanceLoss(*, distance_function=None, margin=1.0, swap=False,
    reduction='mean')``."""

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False, reduction: str = "mean"):
        super().__init__(reduction=reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def execute(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap, reduction=self.reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.multilabel_margin_loss``: target rows hold class indices, ended by the first -1."""
    x = input if input.ndim == 2 else input.unsqueeze(0)
    t = target if target.ndim == 2 else target.unsqueeze(0)
    n, c = int(x.shape[0]), int(x.shape[1])
    tn = t.numpy()
    valid = np.zeros((n, c), bool)
    is_target = np.zeros((n, c), bool)
    for i in range(n):
        for j in range(c):
            if tn[i, j] < 0:
                break
            valid[i, j] = True
            is_target[i, tn[i, j]] = True
    safe_t = jt.array(np.where(valid, tn, 0).astype(np.int32))
    x_t = x.gather(1, safe_t)  # (n, c): x[target_j]
    margins = jt.maximum(1 - x_t.unsqueeze(2) + x.unsqueeze(1), 0.0)  # (n, j, k)
    mask = jt.array((valid[:, :, None] & ~is_target[:, None, :]).astype(np.float32)).cast(x.dtype)
    loss = (margins * mask).sum((1, 2)) / c
    if input.ndim == 1:
        loss = loss.reshape(1)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction))


class MultiLabelMarginLoss(_Loss):
    """``torch.nn.MultiLabelMarginLoss``."""

    def execute(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


def upsample_bilinear(input, size=None, scale_factor=None):
    """``F.upsample_bilinear`` (deprecated): bilinear with ``align_corners=True``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def upsample_nearest(input, size=None, scale_factor=None):
    """``F.upsample_nearest`` (deprecated): nearest."""
    return interpolate(input, size, scale_factor, mode="nearest")


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


class InstanceNorm3d(_InstanceNorm):
    """``torch.nn.InstanceNorm3d``: (N, C, D, H, W) or unbatched (C, D, H, W)."""
    _ndim = 5


class Buffer:
    """``torch.nn.Buffer(data, persistent=True)``: assigned to a ``shims.nn.Module`` attribute it
    registers a buffer (``self.x = nn.Buffer(t)`` is ``self.register_buffer('x', t)``)."""

    def __new__(cls, data=None, *, persistent: bool = True):
        v = jt.zeros(0) if data is None else data
        v = v.detach()
        v.stop_grad()
        _BUFFERS[id(v)] = (v, persistent)  # read (and dropped) by shims.nn.Module.__setattr__
        return v
