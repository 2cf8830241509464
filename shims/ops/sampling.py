"""Random draws torch offers as tensor methods (``exponential_``, ``cauchy_``, ``log_normal_``,
``geometric_``), ``multinomial`` (on the host, seeded from Jittor's generator) and
``feature_dropout``.
"""
from __future__ import annotations

import math

import jittor as jt
import numpy as np

from .dropout import _dropout

__all__ = [
    "feature_dropout", "exponential_", "cauchy_", "log_normal_", "geometric_", "multinomial",
]


def feature_dropout(input, p: float, train: bool):
    """``torch.feature_dropout``: whole ``input[n, c]`` slices."""
    return _dropout(input, p, train, True, False)


def exponential_(input, lambd: float = 1.0, *, generator=None):
    """``Tensor.exponential_``: exponential draws with rate ``lambd``."""
    u = jt.rand(tuple(input.shape))
    return input.assign((-(1.0 - u).log() / lambd).cast(input.dtype))


def cauchy_(input, median: float = 0.0, sigma: float = 1.0, *, generator=None):
    """``Tensor.cauchy_``: Cauchy draws."""
    u = jt.rand(tuple(input.shape))
    return input.assign((median + sigma * (math.pi * (u - 0.5)).tan()).cast(input.dtype))


def log_normal_(input, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """``Tensor.log_normal_``: ``exp(N(mean, std))`` draws."""
    return input.assign((jt.randn(tuple(input.shape)) * std + mean).exp().cast(input.dtype))


def geometric_(input, p: float, *, generator=None):
    """``Tensor.geometric_``: the number of Bernoulli(p) trials to the first success (>= 1)."""
    u = jt.rand(tuple(input.shape))
    return input.assign(((1.0 - u).log() / math.log(1.0 - p)).ceil().cast(input.dtype))


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None):
    """``torch.multinomial`` (drawn on the host from Jittor's seeded generator; int64 indices)."""
    probs = input.numpy().astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    seed = int(jt.randint(0, 2 ** 31 - 1, (1,)).item())
    rng = np.random.default_rng(seed)
    out = []
    for row in rows:
        q = row / row.sum()
        if replacement:
            out.append(rng.choice(len(q), num_samples, replace=True, p=q))
        else:
            if num_samples > np.count_nonzero(q):
                raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
            out.append(rng.choice(len(q), num_samples, replace=False, p=q))
    res = np.stack(out).astype(np.int64)
    return jt.array(res.reshape(probs.shape[:-1] + (num_samples,)))
