"""torch's dropout functions (the layers are :mod:`shims.nn.dropouts`, which explains the
semantics): ``training=True`` by default, torch's mask shapes per input rank, SELU-preserving
alpha dropouts.  Masks come from Jittor's generator (``jt.set_seed``).
"""
from __future__ import annotations

import warnings

import jittor as jt

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766  # SELU's alpha * scale, torch's constant


def _check_p(p: float) -> float:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def _keep_mask(x: jt.Var, p: float, feature: bool) -> jt.Var:
    shape = tuple(x.shape)
    if feature:
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (x.ndim - 2)
    return (jt.rand(shape) >= p).cast(x.dtype)


def _dropout(x: jt.Var, p: float, training: bool, feature: bool, alpha: bool) -> jt.Var:
    p = _check_p(p)
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0
    keep = _keep_mask(x, p, feature)
    if not alpha:
        return x * keep / (1.0 - p)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    return x * (keep * a) + ((keep - 1) * (_ALPHA * a) + _ALPHA * a * p)


def dropout(input: jt.Var, p: float = 0.5, training: bool = True, inplace: bool = False) -> jt.Var:
    """``F.dropout``: element-wise, scaled by ``1/(1-p)``; ``training=True`` by default (torch)."""
    return _dropout(input, p, training, False, False)


def alpha_dropout(input: jt.Var, p: float = 0.5, training: bool = False, inplace: bool = False) -> jt.Var:
    """``F.alpha_dropout`` (``training=False`` by default, as torch's)."""
    return _dropout(input, p, training, False, True)


def feature_alpha_dropout(input: jt.Var, p: float = 0.5, training: bool = False, inplace: bool = False) -> jt.Var:
    """``F.feature_alpha_dropout``: alpha dropout of whole ``input[n, c]`` slices."""
    return _dropout(input, p, training, True, True)


def _unbatched(input: jt.Var, p, training, batched_rank: int, fn: str):
    if input.ndim not in (batched_rank - 1, batched_rank):
        raise RuntimeError(f"{fn}: Expected {batched_rank - 1}D or {batched_rank}D input, but received a "
                           f"{input.ndim}D input. Note that {fn} exists to provide channel-wise dropout on inputs "
                           f"with {batched_rank - 2} spatial dimension(s), a channel dimension, and an optional "
                           "batch dimension.")
    if input.ndim == batched_rank - 1:
        return _dropout(input.unsqueeze(0), p, training, True, False).squeeze(0)
    return _dropout(input, p, training, True, False)


def dropout1d(input: jt.Var, p: float = 0.5, training: bool = True, inplace: bool = False) -> jt.Var:
    """``F.dropout1d``: zero whole channels of ``(N, C, L)`` or unbatched ``(C, L)`` input."""
    return _unbatched(input, p, training, 3, "dropout1d")


def dropout2d(input: jt.Var, p: float = 0.5, training: bool = True, inplace: bool = False) -> jt.Var:
    """``F.dropout2d`` as torch reads each rank: 4-D ``(N, C, H, W)`` channel dropout; 3-D is
    treated as ``(N, C, L)`` (torch's historical behaviour, with its warning); other ranks drop
    ``input[n, c]`` slices (2-D: single elements) with torch's deprecation warning."""
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
                      "dim. This behavior will change in a future release to interpret the input as one "
                      "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _dropout(input, p, training, True, False)


def dropout3d(input: jt.Var, p: float = 0.5, training: bool = True, inplace: bool = False) -> jt.Var:
    """``F.dropout3d``: ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)``; other ranks as torch
    (a warning, then ``input[n, c]`` slices)."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                      "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 4D or 5D inputs).", stacklevel=2)
    if input.ndim == 4:
        return _dropout(input.unsqueeze(0), p, training, True, False).squeeze(0)
    return _dropout(input, p, training, True, False)
