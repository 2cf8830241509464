"""``DataLoader`` with torch's iteration semantics, yielding Jittor Vars.

Jittor 1.3.11 merges dataset and loader (``Dataset.set_attrs``), makes ``len(dataset)`` the
number of batches, cannot take torch-style samplers that never end, and rejects
``pin_memory``/positional ``batch_size``.  This loader keeps torch's shape: any map-style
object with ``__getitem__``/``__len__`` or iterable dataset, samplers and batch samplers
(infinite ones included), ``collate_fn``, ``drop_last``, workers in real processes
(``num_workers > 0``, in-order results, ``prefetch_factor``, ``persistent_workers``,
``worker_init_fn``), and an exception in a worker re-raised in the main process with the
worker's traceback.  Collation runs on numpy; arrays become ``jt.Var`` in the main process.
"""
from __future__ import annotations

import collections.abc
import itertools
import multiprocessing as mp
import queue
import random
import traceback
from typing import Callable, Optional

import numpy as np

import jittor as jt

from .dataset import (IterableDataset, WorkerInfo, _set_worker_info, default_collate,
                      default_convert)
from .. import random_torch
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _torch_stream, make_rng

__all__ = ["DataLoader", "WorkerError"]


class WorkerError(RuntimeError):
    """An exception raised inside a DataLoader worker; the message carries its traceback."""


class _Failure:
    """What a worker sends back instead of a batch when fetching raised."""

    def __init__(self, worker_id: int, exc: BaseException):
        self.worker_id = worker_id
        self.exc_type = type(exc).__name__
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        raise WorkerError(f"Caught {self.exc_type} in DataLoader worker process {self.worker_id}.\n"
                          f"Original Traceback (most recent call last):\n{self.text}")


class _End:
    """An iterable dataset's worker ran out of data."""


def _to_jittor(data):
    """Arrays (and numpy scalars) → ``jt.Var``; containers walked; everything else unchanged."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OUSV":
        return jt.array(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OUSV":
        return jt.array(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        out = {k: _to_jittor(v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_to_jittor(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_to_jittor(d) for d in data)
    return data


def _to_numpy_tree(data):
    """Vars → numpy before a batch crosses the process boundary."""
    if isinstance(data, jt.Var):
        return data.numpy()
    if isinstance(data, collections.abc.Mapping):
        out = {k: _to_numpy_tree(v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_to_numpy_tree(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_to_numpy_tree(d) for d in data)
    return data


class _Fetcher:
    """Turns one task (a batch of indices, an index, or "next" for iterables) into data."""

    def __init__(self, dataset, iterable: bool, auto_collation: bool, collate_fn, batch_size, drop_last):
        self.dataset, self.iterable, self.auto = dataset, iterable, auto_collation
        self.collate_fn, self.batch_size, self.drop_last = collate_fn, batch_size, drop_last
        self.it = iter(dataset) if iterable else None
        self.ended = False

    def fetch(self, index):
        if not self.iterable:
            if self.auto:
                return self.collate_fn([self.dataset[i] for i in index])
            return self.collate_fn(self.dataset[index])
        if self.ended:
            raise StopIteration
        if not self.auto:
            try:
                return self.collate_fn(next(self.it))
            except StopIteration:
                self.ended = True
                raise
        items = list(itertools.islice(self.it, self.batch_size))
        if len(items) < self.batch_size:
            self.ended = True
            if not items or self.drop_last:
                raise StopIteration
        return self.collate_fn(items)


def _base_seed(generator) -> int:
    """The seed an iterator draws when it starts, as torch's does (one int64 ``random_()`` of the
    loader's generator, the global stream when None; numpy's for a numpy Generator or int)."""
    if _torch_stream(generator):
        return random_torch.random_int64(generator)
    return int(make_rng(generator).integers(0, 2 ** 62))


def _worker_loop(fetch_args, index_q, result_q, worker_id, num_workers, seed, init_fn):
    """Body of a worker process: seed, run ``worker_init_fn``, then serve tasks until None."""
    try:
        _set_worker_info(WorkerInfo(worker_id, num_workers, seed, fetch_args[0]))
        random.seed(seed)
        random_torch.default_generator.manual_seed(seed)  # torch seeds its stream so in workers
        np.random.seed(seed % 2 ** 32)
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _Fetcher(*fetch_args)
    except Exception as exc:  # noqa: BLE001 - reported to the main process
        result_q.put((None, _Failure(worker_id, exc), worker_id))
        return
    while True:
        try:
            task = index_q.get(timeout=5.0)
        except queue.Empty:
            continue
        if task is None:
            break
        kind, tag, index = task
        if kind == "reset":
            fetcher = _Fetcher(*fetch_args)
            continue
        try:
            data = _to_numpy_tree(fetcher.fetch(index))
        except StopIteration:
            data = _End()
        except Exception as exc:  # noqa: BLE001 - reported to the main process
            data = _Failure(worker_id, exc)
        result_q.put((tag, data, worker_id))


class _WorkerPool:
    """The worker processes of one DataLoader (kept across epochs when persistent)."""

    def __init__(self, loader: "DataLoader", base_seed: int):
        ctx = mp.get_context(loader.multiprocessing_context or "fork")
        self.num_workers = loader.num_workers
        self.result_q = ctx.Queue()
        self.index_qs, self.procs = [], []
        fetch_args = (loader.dataset, loader._iterable, loader._auto_collation, loader.collate_fn,
                      loader.batch_size, loader.drop_last)
        for w in range(self.num_workers):
            iq = ctx.Queue()
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(fetch_args, iq, self.result_q, w, self.num_workers,
                                  base_seed + w, loader.worker_init_fn))
            p.start()
            self.index_qs.append(iq)
            self.procs.append(p)
        self.epoch = 0

    def new_epoch(self) -> int:
        if self.epoch:
            for iq in self.index_qs:
                iq.put(("reset", None, None))
        self.epoch += 1
        return self.epoch

    def get(self, timeout: float):
        """Next result; raises if a worker died or nothing came within ``timeout`` (0 = none)."""
        waited = 0.0
        while True:
            try:
                return self.result_q.get(timeout=1.0)
            except queue.Empty:
                waited += 1.0
                dead = [p.pid for p in self.procs if not p.is_alive()]
                if dead:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) {dead}) exited unexpectedly") from None
                if timeout and waited >= timeout:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None

    def shutdown(self) -> None:
        for iq in self.index_qs:
            try:  # noqa: SIM105 (also runs from __del__, where at interpreter shutdown `contextlib` may be gone)
                iq.put(None)
            except (OSError, ValueError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
        for q in [*self.index_qs, self.result_q]:
            q.cancel_join_thread()
            q.close()
        self.procs, self.index_qs = [], []


class _SingleProcessIter:
    def __init__(self, loader: "DataLoader"):
        self.loader = loader
        self.base_seed = _base_seed(loader.generator)
        self.fetcher = _Fetcher(loader.dataset, loader._iterable, loader._auto_collation,
                                loader.collate_fn, loader.batch_size, loader.drop_last)
        self.tasks = None if loader._iterable else iter(loader._index_sampler)

    def __iter__(self):
        return self

    def __next__(self):
        index = None if self.tasks is None else next(self.tasks)
        return _to_jittor(self.fetcher.fetch(index))


class _MultiProcessIter:
    """torch's in-order multi-worker iterator: round-robin dispatch, ``prefetch_factor`` tasks
    per worker in flight, results reordered by task number."""

    def __init__(self, loader: "DataLoader"):
        self.loader = loader
        if loader.persistent_workers:
            if loader._pool is None:  # torch draws the seed once for persistent workers
                loader._pool = _WorkerPool(loader, _base_seed(loader.generator))
            self.pool = loader._pool
        else:
            self.pool = _WorkerPool(loader, _base_seed(loader.generator))
        self.epoch = self.pool.new_epoch()
        self.tasks = None if loader._iterable else iter(loader._index_sampler)
        self.active = [True] * self.pool.num_workers
        self.cycle = itertools.cycle(range(self.pool.num_workers))
        self.send_idx = self.rcvd_idx = 0
        self.info = {}
        self.done = False
        for _ in range(loader.prefetch_factor * self.pool.num_workers):
            self._put()

    def _put(self) -> None:
        if not any(self.active):
            return
        w = next(self.cycle)
        while not self.active[w]:
            w = next(self.cycle)
        if self.tasks is not None:
            try:
                index = next(self.tasks)
            except StopIteration:
                return
        else:
            index = None
        self.pool.index_qs[w].put(("fetch", (self.epoch, self.send_idx), index))
        self.info[self.send_idx] = (w,)
        self.send_idx += 1

    def __iter__(self):
        return self

    def _finish(self):
        self.done = True
        if not self.loader.persistent_workers:
            self.pool.shutdown()

    def __next__(self):
        if self.done:
            raise StopIteration
        while True:
            while self.rcvd_idx < self.send_idx:
                entry = self.info.get(self.rcvd_idx)
                if entry is not None and (len(entry) == 2 or self.active[entry[0]]):
                    break
                self.info.pop(self.rcvd_idx, None)
                self.rcvd_idx += 1
            else:
                self._finish()
                raise StopIteration
            entry = self.info[self.rcvd_idx]
            if len(entry) == 2:
                del self.info[self.rcvd_idx]
                self.rcvd_idx += 1
                self._put()
                return self._process(entry[1])
            tag, data, w = self.pool.get(self.loader.timeout)
            if tag is None and isinstance(data, _Failure):  # worker_init_fn or startup failed
                self._process(data)
            if tag[0] != self.epoch:
                continue  # left over from an abandoned epoch of a persistent pool
            idx = tag[1]
            if isinstance(data, _End):
                self.active[w] = False
                self.info.pop(idx, None)
                continue
            if idx != self.rcvd_idx:
                self.info[idx] = (w, data)
                continue
            del self.info[idx]
            self.rcvd_idx += 1
            self._put()
            return self._process(data)

    def _process(self, data):
        if isinstance(data, _Failure):
            self.done = True
            self.pool.shutdown()
            if self.loader._pool is self.pool:
                self.loader._pool = None
            data.reraise()
        return _to_jittor(data)

    def __del__(self):
        if not self.done and not self.loader.persistent_workers:
            try:  # noqa: SIM105 (in __del__ at interpreter shutdown the module's `contextlib` may be gone)
                self.pool.shutdown()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass


class DataLoader:
    """``torch.utils.data.DataLoader`` over any map-style or iterable dataset, yielding Vars.

    Torch behaviour reproduced: ``shuffle`` → :class:`RandomSampler` (torch's order from torch's
    stream for ``generator`` None or a torch Generator, :mod:`shims.random_torch`; a numpy
    Generator or int seed draws from numpy) else :class:`SequentialSampler`; each iterator
    draws its base seed first, from the same stream, as torch's does;
    ``batch_size``/``drop_last`` → :class:`BatchSampler`;
    ``batch_sampler`` replaces all three; ``batch_size=None`` yields single samples through
    ``default_convert``; ``collate_fn`` defaults to :func:`default_collate`; the argument checks
    and their errors follow torch.  ``len()`` is the number of batches.  ``pin_memory`` is accepted
    and has no effect (Jittor manages device memory).  Workers (``num_workers > 0``) are real
    processes (``fork``), seeded with ``base_seed + worker_id`` (torch's stream, numpy and
    ``random``), so transforms drawing from torch's stream draw in a worker as in torch's.
    """

    # complexity: torch's DataLoader argument checks, one after another in torch's order and with its messages
    def __init__(self, dataset, batch_size: Optional[int] = 1, shuffle: Optional[bool] = None,  # noqa: C901
                 sampler=None, batch_sampler=None, num_workers: int = 0,
                 collate_fn: Optional[Callable] = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: Optional[int] = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self._iterable = isinstance(dataset, IterableDataset) or (
            not hasattr(dataset, "__getitem__") and hasattr(dataset, "__iter__"))
        if not self._iterable and not hasattr(dataset, "__getitem__"):
            raise TypeError(f"DataLoader: {type(dataset).__name__} is neither a map-style dataset "
                            "(__getitem__/__len__) nor iterable (__iter__)")
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                       or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.generator = worker_init_fn, generator
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.persistent_workers = persistent_workers
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._pool: Optional[_WorkerPool] = None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _MultiProcessIter(self)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __del__(self):
        if self.__dict__.get("_pool") is not None:
            try:  # noqa: SIM105 (in __del__ at interpreter shutdown the module's `contextlib` may be gone)
                self._pool.shutdown()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
