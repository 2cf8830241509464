"""torch's dataset base classes, ``default_collate``/``default_convert`` and worker info.

Collation works on numpy (workers never create Jittor Vars); the loader turns the collated
arrays into ``jt.Var`` in the main process.
"""
from __future__ import annotations

import collections.abc
import numbers
from dataclasses import dataclass
from typing import Any, Generic, Optional, Sequence, TypeVar

import numpy as np

import jittor as jt

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "default_collate",
           "default_convert", "get_worker_info", "WorkerInfo"]


_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """``torch.utils.data.Dataset``: a map-style dataset (``__getitem__`` and ``__len__``).
    Any class with those two methods works with :class:`DataLoader` (it need not derive)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class IterableDataset(Dataset):
    """``torch.utils.data.IterableDataset``: a stream (``__iter__``); with workers every worker
    iterates its own copy unless ``__iter__`` splits the work by :func:`get_worker_info`."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class TensorDataset(Dataset):
    """``torch.utils.data.TensorDataset(*tensors)``: sample i is ``tuple(t[i] for t in tensors)``
    (read from numpy copies); ``.tensors`` is the tuple of tensors, as torch's (code reads
    ``loader.dataset.tensors[0]`` as a whole batch)."""

    def __init__(self, *tensors):
        arrays = [t.numpy() if isinstance(t, jt.Var) else np.asarray(t) for t in tensors]
        if any(len(a) != len(arrays[0]) for a in arrays):
            raise ValueError("Size mismatch between tensors")
        self._arrays = arrays
        self.tensors = tuple(t if isinstance(t, jt.Var) else jt.array(a) for t, a in zip(tensors, arrays))

    def __getitem__(self, index):
        return tuple(a[index] for a in self._arrays)

    def __len__(self):
        return len(self._arrays[0])


class Subset(Dataset):
    """``torch.utils.data.Subset(dataset, indices)``."""

    def __init__(self, dataset, indices: Sequence[int]):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return [self.dataset[self.indices[i]] for i in idx]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


@dataclass
class WorkerInfo:
    """``torch.utils.data.get_worker_info()``'s record."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: Optional[WorkerInfo] = None


def get_worker_info() -> Optional[WorkerInfo]:
    """Inside a DataLoader worker process: its :class:`WorkerInfo`; in the main process: None."""
    return _worker_info


def _set_worker_info(info: Optional[WorkerInfo]) -> None:
    global _worker_info
    _worker_info = info


def _to_numpy(x):
    return x.numpy() if isinstance(x, jt.Var) else x


def default_collate(batch: Sequence[Any]):
    """``torch.utils.data.default_collate`` on numpy: arrays/Vars are stacked, Python ints →
    int64, floats → float64, bools → bool arrays, strings stay lists, dicts/tuples/lists/
    namedtuples are collated field by field (tuples and lists come back as lists, string fields
    as the tuple of the batch's strings, as torch)."""
    if not batch:
        raise ValueError("default_collate: empty batch")
    elem = batch[0]
    if isinstance(elem, (jt.Var, np.ndarray)):
        arrays = [_to_numpy(b) for b in batch]
        if arrays[0].dtype.kind in "OUS":
            raise TypeError(f"default_collate: batch must contain numbers or arrays; found "
                            f"numpy dtype {arrays[0].dtype}")
        if any(a.shape != arrays[0].shape for a in arrays):
            raise RuntimeError("stack expects each tensor to be equal size, but got "
                               f"{[tuple(a.shape) for a in arrays]}")
        return np.stack(arrays)
    if isinstance(elem, np.generic) and elem.dtype.kind not in "OUS":
        return np.array(batch)
    if isinstance(elem, bool):
        return np.array(batch, dtype=np.bool_)
    if isinstance(elem, numbers.Integral):
        return np.array(batch, dtype=np.int64)
    if isinstance(elem, numbers.Real):
        return np.array(batch, dtype=np.float64)
    if isinstance(elem, (str, bytes)):
        return batch  # as torch: the list/tuple it was given
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)
        except TypeError:  # a mapping type that cannot be built from a dict (torch falls back too)
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain arrays, numbers, dicts or lists; "
                    f"found {type(elem).__name__}")


def default_convert(data):
    """``torch.utils.data.default_convert`` (used when ``batch_size=None``): containers are
    walked, arrays kept (they become Vars in the main process), everything else unchanged."""
    if isinstance(data, jt.Var):
        return data.numpy()
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data
