"""Storages of a checkpoint, read after unpickling and only as far as their tensors reach.

A persistent id names a storage (type, key, element count); tensors are views into it.  Reading
waits until the whole pickle is known, then reads each storage's bytes up to the furthest element
any view touches: a huge storage member behind a 4-element tensor costs 4 elements.
"""
from __future__ import annotations

import math
from typing import Callable, List, Optional

import numpy as np

from .errors import CheckpointError, CheckpointLimitError
from .standins import Inert, PendingTensor, StorageType

# The overlapping views (stride-0 ``expand``s) of one load may together materialise at most this
# many bytes beyond their storages; torch keeps such a tensor as a view, so a 16-byte storage can
# claim a 1.6 GB tensor, and eight 256 MiB expansions fit in a 2 KB file.
MAX_EXPAND_BYTES = 256 << 20


class StorageRef(Inert):
    """One storage as a tensor sees it: a typed window (legacy views: an offset) onto raw bytes."""

    __slots__ = ("key", "stype", "numel", "byte_offset", "views", "raw", "whole")

    def __init__(self, key: str, stype: StorageType, numel: int, byte_offset: int = 0):
        self.key, self.stype, self.numel, self.byte_offset = key, stype, numel, byte_offset
        self.views: List[PendingTensor] = []
        self.raw: Optional[bytes] = None
        self.whole = False  # read every element (a bare storage: its tensors come later)

    def __repr__(self):
        return f"storage {self.key!r}"

    def bytes_needed(self) -> int:
        """Bytes of the underlying record its tensors reach, offset included."""
        span = max([v.span() for v in self.views] + [self.numel if self.whole else 0])
        if span > self.numel:
            raise CheckpointError(f"a tensor view reads past its storage {self.key!r} of "
                                  f"{self.numel} elements (reaches element {span - 1})")
        return self.byte_offset + span * self.stype.dtype.itemsize

    def array(self) -> np.ndarray:
        """The storage's elements as far as they were read (read-only)."""
        raw = self.raw or b""
        window = raw[self.byte_offset:]
        usable = len(window) - len(window) % self.stype.dtype.itemsize
        return np.frombuffer(window[:usable], dtype=self.stype.dtype)


def read_storages(refs: List[StorageRef], record_size: Callable[[str], int],
                  read: Callable[[str, int], bytes]) -> None:
    """Fill ``ref.raw`` for every ref: ``read(key, nbytes)`` once per key, ``nbytes`` the most
    any view of that key needs; ``record_size(key)`` is the record's size on disk."""
    by_key = {}
    for ref in refs:
        by_key.setdefault(ref.key, []).append(ref)
    for key, group in by_key.items():
        need = max(r.bytes_needed() for r in group)
        have = record_size(key)
        if need > have:
            raise CheckpointError(f"storage {key!r} is truncated: its tensors need {need} bytes, "
                                  f"the file holds {have}")
        raw = read(key, need) if need else b""
        if len(raw) != need:
            raise CheckpointError(f"storage {key!r} is truncated")
        for r in group:
            r.raw = raw


class ExpandBudget:
    """What the overlapping views of one load may still materialise beyond their storages."""

    def __init__(self, limit: int = MAX_EXPAND_BYTES):
        self.limit = self.left = limit


def materialise(t: PendingTensor, copy: bool, allow_view: bool, budget: ExpandBudget) -> np.ndarray:
    """The tensor's values: a writable copy (``copy=True``) or a read-only view of the storage.

    An overlapping view (a zero stride) whose elements beyond its stored ones exceed what is
    left of ``budget`` (shared by every tensor of the file) stays a read-only view when
    ``allow_view``, and is refused otherwise; one materialised is charged to ``budget``.
    """
    data = t.storage.array()
    if t.storage.stype.name == "BFloat16Storage":
        data = (data.astype(np.uint32) << 16).view(np.float32)
    numel = math.prod(t.size)
    if numel == 0:
        return np.zeros(t.size, data.dtype)
    contiguous = [math.prod(t.size[i + 1:]) for i in range(len(t.size))]
    if all(st == c for n, st, c in zip(t.size, t.stride, contiguous) if n > 1):
        out = data[t.offset:t.offset + numel].reshape(t.size)
    else:
        out = np.lib.stride_tricks.as_strided(
            data[t.offset:], shape=t.size, strides=[s * data.itemsize for s in t.stride],
            writeable=False)
    expansion = max(0, (numel - (t.span() - t.offset)) * data.itemsize)
    oversized = expansion > budget.left
    if oversized and not allow_view:
        raise CheckpointLimitError(
            f"a tensor of size {t.size} with stride {t.stride} expands {t.span() - t.offset} stored "
            f"elements into {numel} ({numel * data.itemsize / 2**30:.2f} GiB); refusing to "
            f"materialise it (limit {budget.limit >> 20} MiB beyond their storages for all the "
            f"file's tensors, {budget.left >> 20} MiB left). "
            "load(..., to='numpy') returns it as a read-only view, as torch keeps it")
    if not oversized:
        budget.left -= expansion
    if copy and not oversized:  # a writable array of its own (the storage bytes are shared)
        out = np.array(out, copy=True)
    return out
