"""torch's samplers: index streams for a map-style dataset.

Random samplers draw from numpy (``generator`` = a ``numpy.random.Generator``, an int seed, or
None for numpy's global stream), so orders are reproducible but not torch's stream.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Union

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "make_rng"]


def make_rng(generator) -> np.random.Generator:
    """A numpy Generator from ``generator`` (Generator, int seed, or None → fresh from numpy's
    global stream, so ``np.random.seed`` makes it reproducible like ``torch.manual_seed``)."""
    if isinstance(generator, np.random.Generator):
        return generator
    if generator is None:
        return np.random.default_rng(np.random.randint(0, 2 ** 31 - 1))
    if isinstance(generator, (int, np.integer)):
        return np.random.default_rng(int(generator))
    raise TypeError(f"generator must be a numpy.random.Generator, an int seed or None, "
                    f"got {type(generator).__name__}")


class Sampler:
    """``torch.utils.data.Sampler``: subclasses define ``__iter__`` (and usually ``__len__``).
    Infinite samplers (``__len__`` = 2**31, an endless ``__iter__``) are supported."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError

    def _epoch_rng(self) -> np.random.Generator:
        """The stream for one epoch: the given Generator (or one built once from an int seed)
        advances across epochs like a torch Generator; None draws a fresh seed each epoch."""
        gen = getattr(self, "generator", None)
        if gen is None:
            return make_rng(None)
        if getattr(self, "_rng", None) is None:
            self._rng = make_rng(gen)
        return self._rng


class SequentialSampler(Sampler):
    """``torch.utils.data.SequentialSampler``: 0, 1, ..., len-1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """``torch.utils.data.RandomSampler(data_source, replacement=False, num_samples=None,
    generator=None)``: a fresh permutation each epoch (in chunks of n when ``num_samples`` > n)."""

    def __init__(self, data_source, replacement: bool = False, num_samples: Optional[int] = None,
                 generator=None):
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, got {self.num_samples}")
        self._rng = None

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        rng, n = self._epoch_rng(), len(self.data_source)
        if self.replacement:
            yield from (int(i) for i in rng.integers(0, n, size=self.num_samples))
            return
        for _ in range(self.num_samples // n):
            yield from (int(i) for i in rng.permutation(n))
        yield from (int(i) for i in rng.permutation(n)[: self.num_samples % n])

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """``torch.utils.data.SubsetRandomSampler(indices, generator=None)``: a permutation of ``indices``."""

    def __init__(self, indices: Sequence[int], generator=None):
        self.indices, self.generator = list(indices), generator
        self._rng = None

    def __iter__(self):
        for i in self._epoch_rng().permutation(len(self.indices)):
            yield self.indices[int(i)]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``torch.utils.data.WeightedRandomSampler(weights, num_samples, replacement=True,
    generator=None)``: indices drawn with probability proportional to ``weights``."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, got {num_samples}")
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64).reshape(-1)
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be finite, non-negative, not all zero")
        if not replacement and num_samples > (w > 0).sum():
            raise ValueError("WeightedRandomSampler: num_samples exceeds the non-zero weights "
                             "while replacement=False")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator
        self._rng = None

    def __iter__(self):
        idx = self._epoch_rng().choice(len(self.weights), size=self.num_samples, replace=self.replacement,
                               p=self.weights / self.weights.sum())
        return iter(int(i) for i in idx)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """``torch.utils.data.BatchSampler(sampler, batch_size, drop_last)``: lists of indices,
    read lazily (works with infinite samplers)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
