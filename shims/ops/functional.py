"""``torch.nn.functional`` ops whose Jittor form differs: activations, losses, padding, 1-d layers."""
from __future__ import annotations

import builtins as _b
import math
from typing import Optional

import jittor as jt

from ._common import _cast, _dims, float_mean, float_sum
from .linalg import _p_norm
from .pointwise import expm1, xlogy
from .reduce import logsumexp

__all__ = ['logsigmoid', 'normalize', 'softmax', 'log_softmax', 'cosine_similarity', 'pairwise_distance', 'gelu',
           'softplus', 'bilinear', 'pad', 'mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss',
           'binary_cross_entropy', 'binary_cross_entropy_with_logits', 'nll_loss', 'cross_entropy', 'kl_div', 'selu',
           'celu', 'softsign', 'hardswish', 'hardsigmoid', 'softshrink', 'hardshrink', 'tanhshrink', 'threshold',
           'prelu', 'glu', 'softmin', 'pixel_shuffle', 'pixel_unshuffle', 'mish']


def logsigmoid(input):
    """``F.logsigmoid``, stable for large negative inputs (Jittor's is log(sigmoid(x)))."""
    return jt.minimum(input, 0.0) - (-input.abs()).exp().add(1.0).log()


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``F.normalize``: ``x / max(||x||_p, eps)`` with torch's eps 1e-12 (Jittor: 1e-30)."""
    dims = _dims(input, dim)
    if p == 2:
        # sqrt(max(|x|^2, eps^2)) == max(|x|, eps), with a zero (not NaN) gradient at x == 0
        n = jt.maximum((input * input).sum(dims, keepdims=True), eps * eps).sqrt()
    else:
        n = jt.maximum(_p_norm(input, p, dims, True), eps)
    return input / n


def softmax(input, dim: int, dtype=None):
    """``F.softmax`` over ``dim`` (Jittor's default is the whole tensor), max-shifted."""
    x = _cast(input, dtype)
    e = (x - x.max(dim, keepdims=True).stop_grad()).exp()
    return e / e.sum(dim, keepdims=True)


def log_softmax(input, dim: int, dtype=None):
    """``F.log_softmax`` over ``dim``, max-shifted."""
    x = _cast(input, dtype)
    return x - logsumexp(x, dim, keepdim=True)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """``F.cosine_similarity``: ``x1.x2 / max(||x1|| ||x2||, eps)``, as torch >= 2.0 computes it."""
    w12 = (x1 * x2).sum(dim)
    n1 = (x1 * x1).sum(dim)
    n2 = (x2 * x2).sum(dim)
    return w12 / jt.maximum(n1 * n2, eps * eps).sqrt()


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``F.pairwise_distance``: ``||x1 - x2 + eps||_p`` over the last dim."""
    return _p_norm(x1 - x2 + eps, p, (_b.max(x1.ndim, x2.ndim) - 1,), keepdim)




def gelu(input, approximate: str = "none"):
    """``F.gelu`` with ``approximate='none'`` (erf) or ``'tanh'``."""
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * input * (1.0 + (k * (input + 0.044715 * input * input * input)).tanh())
    if approximate != "none":
        raise ValueError(f"gelu(approximate={approximate!r}): expected 'none' or 'tanh'")
    return 0.5 * input * (1.0 + (input / math.sqrt(2.0)).erf())


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``F.softplus``: ``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    bx = input * beta
    safe = jt.minimum(bx, float(threshold))
    soft = (jt.maximum(safe, 0.0) + (-safe.abs()).exp().add(1.0).log()) / beta
    return jt.ternary(bx > threshold, input, soft)


def bilinear(input1, input2, weight, bias=None):
    """``F.bilinear``: ``y[..., o] = x1 W[o] x2 + b[o]`` (Jittor requires a bias)."""
    o, i, j = (int(s) for s in weight.shape)
    lead = [int(s) for s in input1.shape[:-1]]
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, j)
    t = jt.matmul(x1, weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + [o])


def pad(input, pad, mode: str = "constant", value: Optional[float] = None):
    """``F.pad``: any ``value`` for constant mode, and negative pads (cropping), which make
    Jittor's pad fail to compile."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: expected an even number of pads for at most {input.ndim} dims, got {pad}")
    # crop the negative sides first (pads run from the last dim backwards)
    index = [slice(None)] * input.ndim
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        index[d] = slice(-lo if lo < 0 else None, hi if hi < 0 else None)
    x = input[tuple(index)] if _b.any(p < 0 for p in pad) else input
    pos = [_b.max(p, 0) for p in pad]
    if not _b.any(pos):
        return x
    if mode != "constant":
        return jt.nn.pad(x, pos, mode=mode)
    y = jt.nn.pad(x, pos)
    if value:
        y = y + float(value) * (1.0 - jt.nn.pad(jt.ones_like(x), pos))
    return y


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return float_mean(loss, tuple(range(loss.ndim)))
    if reduction == "sum":
        return float_sum(loss, tuple(range(loss.ndim)))
    if reduction == "none":
        return loss
    raise ValueError(f"reduction={reduction!r}: expected 'mean', 'sum' or 'none'")


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """torch's ``_Reduction.legacy_get_string``: the deprecated ``size_average=``/``reduce=``
    arguments (torch 0.4 code) decide the reduction when either is given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.mse_loss`` with ``reduction``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.l1_loss`` with ``reduction``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
    """``F.smooth_l1_loss``: ``0.5 d^2 / beta`` below ``beta``, ``|d| - 0.5 beta`` above."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(jt.ternary(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    """``F.huber_loss``: ``0.5 d^2`` below ``delta``, ``delta (|d| - 0.5 delta)`` above."""
    d = (input - target).abs()
    return _reduce(jt.ternary(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    """``F.binary_cross_entropy``, logs clamped at -100 as torch does."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * jt.maximum(input.log(), -100.0) + (1 - target) * jt.maximum((1 - input).log(), -100.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    """``F.binary_cross_entropy_with_logits`` (stable), with ``weight`` and ``pos_weight``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    log_sig = logsigmoid(input)
    log_1m = logsigmoid(-input)
    pos = target * log_sig
    if pos_weight is not None:
        pos = pos * pos_weight
    loss = -(pos + (1 - target) * log_1m)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    """``F.nll_loss`` for (N, C) or (N, C, d1, ...) log-probabilities, with ``weight``,
    ``ignore_index`` and ``reduction`` (mean divides by the summed weights of kept targets)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    c = int(input.shape[1])
    logp = input if input.ndim == 2 else input.reshape(int(input.shape[0]), c, -1).transpose(1, 2).reshape(-1, c)
    t = target.reshape(-1)
    keep = (t != ignore_index)
    safe_t = jt.ternary(keep, t, jt.zeros_like(t))
    onehot = (jt.arange(c).reshape(1, c) == safe_t.reshape(-1, 1)).float32()
    w = onehot if weight is None else onehot * weight.reshape(1, c)
    w = w * keep.float32().reshape(-1, 1)
    picked = -(logp * w).sum(1)
    if reduction == "mean":
        return picked.sum() / w.sum()
    if reduction == "none":
        return picked.reshape(target.shape)
    return _reduce(picked, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    """``F.cross_entropy`` with class-index targets, ``weight``, ``ignore_index``,
    ``reduction`` and ``label_smoothing``; (N, C, d1, ...) inputs too."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    logp = log_softmax(input, 1)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    c = int(input.shape[1])
    keep = (target != ignore_index).float32()
    w = 1.0 if weight is None else weight.reshape([1, c] + [1] * (input.ndim - 2))
    smooth = -(logp * w).sum(1) * keep
    if reduction == "mean":
        denom = keep.sum() if weight is None else nll_weight_sum(target, weight, ignore_index, c)
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + (label_smoothing / c) * smooth


def nll_weight_sum(target, weight, ignore_index, c):
    """Sum of ``weight[target]`` over kept targets (torch's mean denominator)."""
    t = target.reshape(-1)
    keep = (t != ignore_index)
    safe_t = jt.ternary(keep, t, jt.zeros_like(t))
    onehot = (jt.arange(c).reshape(1, c) == safe_t.reshape(-1, 1)).float32()
    return (onehot * weight.reshape(1, c) * keep.float32().reshape(-1, 1)).sum()


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
    """``F.kl_div`` (``input`` log-probabilities), with ``batchmean``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = target.exp() * (target - input) if log_target else xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / int(input.shape[0])
    return _reduce(loss, reduction)


def selu(input, inplace: bool = False):
    """``F.selu``."""
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * jt.ternary(input > 0, input, alpha * expm1(jt.minimum(input, 0.0)))


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """``F.celu``: ``max(0, x) + min(0, alpha * expm1(x / alpha))``."""
    return jt.maximum(input, 0.0) + jt.minimum(alpha * expm1(input / alpha), 0.0)


def softsign(input):
    """``F.softsign``."""
    return input / (1.0 + input.abs())


def hardswish(input, inplace: bool = False):
    """``F.hardswish``: ``x * relu6(x + 3) / 6``."""
    return input * jt.minimum(jt.maximum(input + 3.0, 0.0), 6.0) / 6.0


def hardsigmoid(input, inplace: bool = False):
    """``F.hardsigmoid``: ``relu6(x + 3) / 6``."""
    return jt.minimum(jt.maximum(input + 3.0, 0.0), 6.0) / 6.0


def softshrink(input, lambd: float = 0.5):
    """``F.softshrink``."""
    return jt.ternary(input > lambd, input - lambd, jt.ternary(input < -lambd, input + lambd, jt.zeros_like(input)))


def hardshrink(input, lambd: float = 0.5):
    """``F.hardshrink``."""
    return jt.ternary(input.abs() > lambd, input, jt.zeros_like(input))


def tanhshrink(input):
    """``F.tanhshrink``: ``x - tanh(x)``."""
    return input - input.tanh()


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``F.threshold``: ``x`` where ``x > threshold``, else ``value``."""
    return jt.ternary(input > threshold, input, jt.full_like(input, value))


def prelu(input, weight):
    """``F.prelu``: one slope, or one per channel (dim 1)."""
    w = weight if weight.numel() == 1 else weight.reshape([1, -1] + [1] * (input.ndim - 2))
    return jt.ternary(input >= 0, input, w * input)


def glu(input, dim: int = -1):
    """``F.glu``: ``a * sigmoid(b)`` of the two halves along ``dim``."""
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def softmin(input, dim: int, dtype=None):
    """``F.softmin``: ``softmax(-x)``."""
    return softmax(-input, dim, dtype)


def pixel_shuffle(input, upscale_factor: int):
    """``F.pixel_shuffle``: (N, C r^2, H, W) -> (N, C, H r, W r)."""
    n, c, h, w = (int(s) for s in input.shape)
    r = int(upscale_factor)
    y = input.reshape(n, c // (r * r), r, r, h, w).permute(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor: int):
    """``F.pixel_unshuffle``: (N, C, H r, W r) -> (N, C r^2, H, W)."""
    n, c, h, w = (int(s) for s in input.shape)
    r = int(downscale_factor)
    y = input.reshape(n, c, h // r, r, w // r, r).permute(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * r * r, h // r, w // r)


def mish(input, inplace: bool = False):
    """``F.mish``: ``x * tanh(softplus(x))`` (Jittor's Mish calls a missing ``jt.softplus``)."""
    return input * softplus(input).tanh()
