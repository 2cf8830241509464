"""torch's samplers: index streams for a map-style dataset.

``RandomSampler`` and ``SubsetRandomSampler`` draw as torch's do, from torch's own CPU stream
(:mod:`shims.random_torch`): with ``generator=None`` from the global stream that
``torch.manual_seed`` (converted: ``shims.manual_seed``) seeds, or from a ``torch.Generator``
(converted: ``shims.Generator``), so a seeded program gets torch's order exactly (see that
module for when the global stream stays in step with torch's).  A ``numpy.random.Generator`` or
an int seed is accepted too and draws from numpy (reproducible, not torch's order).
``WeightedRandomSampler`` with replacement draws torch's ``multinomial`` from the same streams
(without replacement, from numpy).  ``DistributedSampler``
seeds its own generator (``seed + epoch``), so its order is torch's exactly.
"""
from __future__ import annotations

import math
from typing import Generic, Iterator, List, Optional, Sequence, TypeVar

import numpy as np
from jittor import compile_extern

from .. import random_torch

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedSampler", "make_rng",
           "torch_randperm"]


def _torch_stream(generator) -> bool:
    """Whether ``generator`` means torch's stream (None: the global one, or a torch Generator)."""
    return generator is None or isinstance(generator, random_torch.Generator)


def make_rng(generator) -> np.random.Generator:
    """A numpy Generator from ``generator`` (Generator, int seed, a torch-style
    :class:`shims.random_torch.Generator` (one seed drawn from it), or None → fresh from numpy's
    global stream, so ``np.random.seed`` makes it reproducible)."""
    if isinstance(generator, np.random.Generator):
        return generator
    if generator is None:
        return np.random.default_rng(np.random.randint(0, 2 ** 31 - 1))
    if isinstance(generator, random_torch.Generator):
        return np.random.default_rng(random_torch.random_int64(generator))
    if isinstance(generator, (int, np.integer)):
        return np.random.default_rng(int(generator))
    raise TypeError(f"generator must be a torch Generator, a numpy.random.Generator, an int seed "
                    f"or None, got {type(generator).__name__}")


_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
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
    generator=None)``: a fresh permutation each epoch (in chunks of n when ``num_samples`` > n),
    torch's own order for ``generator`` None or a torch Generator."""

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
        n = len(self.data_source)
        if _torch_stream(self.generator):
            yield from self._torch_order(n)
            return
        rng = self._epoch_rng()
        if self.replacement:
            yield from (int(i) for i in rng.integers(0, n, size=self.num_samples))
            return
        for _ in range(self.num_samples // n):
            yield from (int(i) for i in rng.permutation(n))
        yield from (int(i) for i in rng.permutation(n)[: self.num_samples % n])

    def _torch_order(self, n: int):
        """torch's draws: with no generator a seed from the global stream for a fresh one; 32
        indices per ``randint`` with replacement; else whole ``randperm``s (the last one cut,
        drawn even when nothing of it is used, as torch draws it)."""
        gen = self.generator
        if gen is None:
            gen = random_torch.Generator().manual_seed(random_torch.random_int64())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from random_torch.randint(0, n, 32, gen).tolist()
            yield from random_torch.randint(0, n, self.num_samples % 32, gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from random_torch.randperm(n, gen)
        yield from random_torch.randperm(n, gen)[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """``torch.utils.data.SubsetRandomSampler(indices, generator=None)``: a permutation of
    ``indices``, torch's own (``randperm`` of the generator, the global stream when None)."""

    def __init__(self, indices: Sequence[int], generator=None):
        self.indices, self.generator = list(indices), generator
        self._rng = None

    def __iter__(self):
        if _torch_stream(self.generator):
            order = random_torch.randperm(len(self.indices), self.generator)
        else:
            order = self._epoch_rng().permutation(len(self.indices))
        for i in order:
            yield self.indices[int(i)]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``torch.utils.data.WeightedRandomSampler(weights, num_samples, replacement=True,
    generator=None)``: indices drawn with probability proportional to ``weights``; with
    replacement (the default) torch's own indices for ``generator`` None or a torch Generator."""

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
        if self.replacement and self.num_samples > 1 and _torch_stream(self.generator):
            idx = random_torch.multinomial_with_replacement(self.weights, self.num_samples, self.generator)
        else:
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


def torch_randperm(n: int, seed: int) -> List[int]:
    """``torch.randperm(n, generator=torch.Generator().manual_seed(seed))``, exactly
    (:func:`shims.random_torch.randperm` on a fresh generator)."""
    return random_torch.randperm(n, random_torch.Generator().manual_seed(seed))


class DistributedSampler(Sampler):
    """``torch.utils.data.distributed.DistributedSampler``: this process's share of the dataset,
    the same indices torch gives each rank in each epoch (``set_epoch``).

    ``num_replicas``/``rank`` default to the MPI world (``mpirun -np N``; one process without
    it).  Shuffled orders are torch's own (:func:`torch_randperm` of ``seed + epoch``), padded by
    repeating the head (or cut with ``drop_last``) to a multiple of the world size, then dealt out
    ``rank, rank + N, ...``."""

    def __init__(self, dataset, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False):
        if num_replicas is None:
            num_replicas = int(compile_extern.world_size) if compile_extern.in_mpi else 1
        if rank is None:
            rank = int(compile_extern.rank) if compile_extern.in_mpi else 0
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        indices = torch_randperm(n, self.seed + self.epoch) if self.shuffle else list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` in the next shuffle, as torch does (call it before each epoch)."""
        self.epoch = epoch
