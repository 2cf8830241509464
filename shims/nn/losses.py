"""torch's losses Jittor lacks (or reduces differently), as functions and ``_Loss`` modules:
``NLLLoss`` with ``weight``/``ignore_index``/``reduction``, ``MSELoss``, ``L1Loss``, ``HuberLoss``,
``SmoothL1Loss``, ``MarginRankingLoss``, ``SoftMarginLoss``, ``CosineEmbeddingLoss``,
``HingeEmbeddingLoss``, ``TripletMarginLoss`` (and ``...WithDistanceLoss``), ``GaussianNLLLoss``,
``PoissonNLLLoss``, ``MultiLabelSoftMarginLoss``, ``MultiLabelMarginLoss``, ``MultiMarginLoss``.
"""
from __future__ import annotations

import math

import jittor as jt
import numpy as np

from ..ops import functional as F
from ..ops.functional import _legacy_reduction
from .module import Module

__all__ = [
    "margin_ranking_loss", "soft_margin_loss", "cosine_embedding_loss", "hinge_embedding_loss",
    "triplet_margin_loss", "gaussian_nll_loss", "poisson_nll_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "NLLLoss", "HuberLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "MarginRankingLoss",
    "SoftMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "TripletMarginLoss", "GaussianNLLLoss",
    "PoissonNLLLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "triplet_margin_with_distance_loss",
    "TripletMarginWithDistanceLoss", "multilabel_margin_loss", "MultiLabelMarginLoss", "CrossEntropyLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss",
]


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
    if var.ndim == input.ndim - 1 or (var.ndim == input.ndim and int(var.shape[-1]) == 1  # noqa: SIM102 (keeps the 0-d IndexError)
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


# -- loss layers with torch's whole constructor signature, where Jittor's namesake takes fewer
# arguments (every reduction, label_smoothing, torch's positional order, size_average=/reduce=)

class CrossEntropyLoss(_Loss):
    """``torch.nn.CrossEntropyLoss(weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0)``."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def execute(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_Loss):
    """``torch.nn.BCELoss(weight=None, size_average=None, reduce=None, reduction='mean')``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def execute(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``torch.nn.BCEWithLogitsLoss(weight=None, size_average=None, reduce=None,
    reduction='mean', pos_weight=None)``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def execute(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    """``torch.nn.KLDivLoss(size_average=None, reduce=None, reduction='mean', log_target=False)``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def execute(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
