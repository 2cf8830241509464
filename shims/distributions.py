"""``torch.distributions.Categorical`` (reinforcement-learning code samples actions with it):
``probs``/``logits``, ``sample``, ``log_prob``, ``entropy``.  Draws come from Jittor's seeded
generator (:func:`shims.ops.sampling.multinomial`), not torch's stream."""
from __future__ import annotations

import jittor as jt

from .ops.sampling import multinomial

__all__ = ["Categorical"]


class Categorical:
    """``torch.distributions.Categorical(probs=None, logits=None, validate_args=None)`` over the
    last dimension (a batch of distributions for the leading ones)."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdims=True)
            self.logits = self.probs.clamp(1.1754944e-38, 1.0).log()
        else:
            self.logits = logits - logits.exp().sum(-1, keepdims=True).log()
            self.probs = jt.nn.softmax(logits, -1)

    @property
    def batch_shape(self):
        """The leading dimensions of ``probs``."""
        return tuple(self.probs.shape[:-1])

    def sample(self, sample_shape=()):
        """Category indices of shape ``sample_shape + batch_shape`` (no gradient)."""
        n = 1
        for s in sample_shape:
            n *= int(s)
        flat = self.probs.reshape(-1, int(self.probs.shape[-1])).detach()
        draws = multinomial(flat, n, replacement=True)  # (batch, n)
        draws = draws.transpose(1, 0).reshape(tuple(sample_shape) + self.batch_shape)
        return draws

    def log_prob(self, value):
        """``log p(value)``, broadcast over the batch."""
        idx = value.cast("int32").unsqueeze(-1)
        logits = self.logits
        if idx.ndim > logits.ndim:
            logits = logits.broadcast(tuple(idx.shape[:-1]) + (int(logits.shape[-1]),))
        return jt.gather(logits, -1, idx).squeeze(-1)

    def entropy(self):
        """``-sum p log p`` over the categories."""
        return -(self.probs * self.logits).sum(-1)
