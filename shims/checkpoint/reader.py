"""Reading ``torch.save`` files (zip and legacy formats) through the restricted unpickler.

Resource limits, each refused early with :class:`CheckpointLimitError` naming the file:

* zip members must be stored or deflated, the two methods torch's reader (miniz) reads: bzip2
  and LZMA members are refused from their header, because Python's ``zipfile`` decompresses them
  unbounded by what ``read(n)`` asks (a 915-byte bzip2 ``data.pkl`` peaked at 2.1 GB);
* the pickle (``data.pkl``, or the legacy main pickle) may inflate to at most
  :data:`MAX_PICKLE_BYTES` (a 1.5 MB zip whose ``data.pkl`` inflates to 1.5 GB is refused from
  its header, before anything is decompressed);
* storages are read only as far as their tensors reach (:mod:`.storages`), and a storage record
  larger than the size its id declares is refused;
* overlapping views are not materialised beyond :data:`~.storages.MAX_EXPAND_BYTES`, all of
  one file's together.
"""
from __future__ import annotations

import collections
import io
import os
import struct
import zipfile
from typing import Any, Dict, List

import jittor as jt

from .errors import CheckpointError, CheckpointLimitError
from .numpy_globals import ArrayBuilder
from .standins import PendingTensor, StorageType
from .storages import ExpandBudget, StorageRef, materialise, read_storages
from .unpickler import SafeUnpickler
from .trusted_objects import resolve, restore
from .module_rebuild import rebuild
from .whole_module import Record

MAX_PICKLE_BYTES = 64 << 20
# Methods whose zipfile reader yields at most the bytes asked for (deflate passes max_length).
_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c


def _as_key(v) -> str:
    if isinstance(v, bytes):
        v = v.decode("ascii")
    if not isinstance(v, str) or not v or len(v) > 256:
        raise CheckpointError("malformed storage key")
    return v


def _storage_id(data, n: int):
    if not isinstance(data, tuple) or len(data) < n:
        raise CheckpointError("malformed storage id")
    stype, key, _location, numel = data[:4]
    if not isinstance(stype, StorageType):
        raise CheckpointError("persistent id names no storage type")
    if not isinstance(numel, int) or isinstance(numel, bool) or numel < 0:
        raise CheckpointError("storage id with an invalid element count")
    return stype, _as_key(key), numel


def _unpickle(data: bytes, loader, trust: bool):
    return SafeUnpickler(io.BytesIO(data), loader, trust_classes=trust).load()


def _readable(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """``info``, if its compression is one whose decompression stays bounded by the read size."""
    if info.compress_type not in _READABLE_METHODS:
        raise CheckpointLimitError(
            f"zip member {info.filename!r} is compressed with method {info.compress_type} "
            f"({_METHOD_NAMES.get(info.compress_type, 'unknown')}); torch writes stored members and "
            "reads stored or deflated ones only: refusing to decompress it")
    return info


def load_zip(zf: zipfile.ZipFile, trust: bool):
    """The object a torch zip checkpoint holds, with storages read (tensors still pending)."""
    infos = {i.filename: i for i in zf.infolist()}
    pkl = [n for n in infos if n.endswith("/data.pkl") and n.count("/") == 1]
    if len(pkl) != 1:
        raise CheckpointError("not a torch zip checkpoint (no unique <name>/data.pkl)")
    prefix = pkl[0][:-len("data.pkl")]
    size = _readable(infos[pkl[0]]).file_size
    if size > MAX_PICKLE_BYTES:
        raise CheckpointLimitError(f"data.pkl inflates to {size} bytes (limit {MAX_PICKLE_BYTES}); "
                                   "refusing to decompress it")
    refs: List[StorageRef] = []

    def record_size(key: str) -> int:
        info = infos.get(f"{prefix}data/{key}")
        if info is None:
            raise CheckpointError(f"storage '{key}' missing from the archive")
        return _readable(info).file_size

    def load_storage(data):
        stype, key, numel = _storage_id(data, 4)
        declared = numel * stype.dtype.itemsize
        have = record_size(key)
        if have > declared:
            raise CheckpointLimitError(f"storage '{key}' holds {have} bytes but its id declares "
                                       f"{numel} elements ({declared} bytes): refused")
        ref = StorageRef(key, stype, numel)
        refs.append(ref)
        return ref

    def read(key: str, nbytes: int) -> bytes:
        with zf.open(f"{prefix}data/{key}") as f:
            return f.read(nbytes)

    with zf.open(pkl[0]) as f:
        result = _unpickle(f.read(MAX_PICKLE_BYTES + 1), load_storage, trust)
    read_storages(refs, record_size, read)
    return result


# complexity: reads torch's legacy format in file order (magic, protocol, sys info, pickle, storages), each step checked
def load_legacy(f, total: int, trust: bool, bare_storage: bool = False):  # noqa: C901
    """The object a legacy (``_use_new_zipfile_serialization=False``) checkpoint holds; with
    ``bare_storage``, a file that holds one storage (read whole), as pickled tensors embed them."""
    def plain():
        return SafeUnpickler(_Bounded(f, MAX_PICKLE_BYTES, f.tell()), _no_storage).load()

    if plain() != _LEGACY_MAGIC:
        raise CheckpointError("not a torch checkpoint (bad magic number)")
    if plain() != 1001:
        raise CheckpointError("unsupported legacy torch protocol version")
    sys_info = plain()
    if isinstance(sys_info, dict) and sys_info.get("little_endian") is False:
        raise CheckpointError("big-endian legacy checkpoints are not supported")
    roots: Dict[str, StorageRef] = {}
    refs: List[StorageRef] = []

    def load_storage(data):
        stype, key, numel = _storage_id(data, 5)
        view_meta = data[4]
        root = roots.setdefault(key, StorageRef(key, stype, numel))
        if view_meta is None:
            refs.append(root)
            return root
        if not isinstance(view_meta, tuple) or len(view_meta) != 3 \
                or not all(isinstance(v, int) and v >= 0 for v in view_meta[1:]):
            raise CheckpointError("malformed legacy storage view")
        _vkey, offset, vsize = view_meta
        view = StorageRef(key, stype, vsize, offset * stype.dtype.itemsize)
        refs.append(view)
        return view

    start = f.tell()
    result = SafeUnpickler(_Bounded(f, MAX_PICKLE_BYTES, start), load_storage,
                           trust_classes=trust).load()
    if bare_storage:
        if not isinstance(result, StorageRef):
            raise CheckpointError(f"expected a storage, found a {type(result).__name__}")
        result.whole = True
    keys = plain()
    if not isinstance(keys, list):
        raise CheckpointError("malformed legacy storage key list")
    sizes: Dict[str, int] = {}
    data: Dict[str, bytes] = {}
    by_key: Dict[str, List[StorageRef]] = collections.defaultdict(list)
    for r in refs:
        by_key[r.key].append(r)
    for key in keys:
        key = _as_key(key)
        if key not in roots:
            raise CheckpointError(f"storage key {key!r} was never referenced")
        head = f.read(8)
        if len(head) != 8:
            raise CheckpointError(f"truncated storage {key!r}")
        (count,) = struct.unpack("<q", head)
        nbytes = count * roots[key].stype.dtype.itemsize
        if count < 0 or f.tell() + nbytes > total:
            raise CheckpointError(f"truncated storage {key!r}")
        need = max((r.bytes_needed() for r in by_key[key]), default=0)
        sizes[key] = nbytes
        data[key] = f.read(min(need, nbytes))
        f.seek(nbytes - len(data[key]), os.SEEK_CUR)
    read_storages(refs, lambda k: sizes.get(k, 0), lambda k, n: data[k][:n])
    return result


def _no_storage(_pid):
    raise CheckpointError("storage id outside the main pickle")


class _Bounded(io.RawIOBase):
    """A file read through at most ``limit`` bytes from ``start`` (the legacy main pickle)."""

    def __init__(self, f, limit: int, start: int):
        self.f, self.end = f, start + limit

    def readable(self):
        return True

    def read(self, n=-1):
        left = self.end - self.f.tell()
        if n is None or n < 0 or n > left:
            if left <= 0:
                raise CheckpointLimitError(f"the pickle is larger than {MAX_PICKLE_BYTES} bytes")
            n = left
        return self.f.read(n)

    def readline(self, size=-1):
        left = self.end - self.f.tell()
        line = self.f.readline(left)
        if len(line) >= left and not line.endswith(b"\n"):
            raise CheckpointLimitError(f"the pickle is larger than {MAX_PICKLE_BYTES} bytes")
        return line

    def readinto(self, b):
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)


def read_storage_bytes(data: bytes) -> StorageRef:
    """A storage torch pickled on its own (``torch.storage._load_from_bytes``: the bytes of a
    legacy ``torch.save`` of the storage), read whole through the restricted unpickler."""
    if not isinstance(data, bytes):
        raise CheckpointError("_load_from_bytes expects bytes")
    return load_legacy(io.BytesIO(data), len(data), trust=False, bare_storage=True)


def finish(obj, to_var: bool):
    """Turn pending tensors into arrays/Vars, rebuild trusted models; shared objects stay shared."""
    memo: Dict[int, Any] = {}
    budget = ExpandBudget()

    def go(o):
        if id(o) in memo:
            return memo[id(o)]
        if isinstance(o, PendingTensor):
            arr = materialise(o, copy=not to_var, allow_view=not to_var, budget=budget)
            out = jt.array(arr) if to_var else arr
        elif isinstance(o, ArrayBuilder):
            out = o.resolved()
        elif isinstance(o, StorageRef):
            raise CheckpointError("bare storages are not supported; save tensors")
        elif isinstance(o, Record) and o.is_module():  # a torch module's __dict__ (torch wrote it)
            out = rebuild(o, go)
        elif isinstance(o, Record):
            out = restore(o, go, memo)
        elif isinstance(o, type) and issubclass(o, Record):  # a class or function as a value
            out = resolve(o.module, o.qualname, "the file names")
        elif isinstance(o, dict):  # OrderedDict keeps its type and torch's _metadata
            out = collections.OrderedDict() if isinstance(o, collections.OrderedDict) else {}
            memo[id(o)] = out
            out.update((k, go(v)) for k, v in o.items())
            if getattr(o, "_metadata", None) is not None:
                out._metadata = o._metadata
        elif isinstance(o, list):
            out = []
            memo[id(o)] = out
            out.extend(go(v) for v in o)
        elif isinstance(o, tuple):
            out = tuple(go(v) for v in o)
        else:
            return o
        memo[id(o)] = out
        return out

    return go(obj)


def read_checkpoint(f, to_var: bool, trust: bool):
    """Read an open binary file positioned at a checkpoint's first byte.  Errors say what is
    wrong, not where: :func:`shims.checkpoint.load` puts the file's path in front."""
    start = f.tell()
    head = f.read(4)
    f.seek(0, os.SEEK_END)
    total = f.tell()
    f.seek(start)
    if not head:
        raise CheckpointError("empty file: not a torch checkpoint")
    if head.startswith(b"PK"):
        try:
            zf = zipfile.ZipFile(f)
        except zipfile.BadZipFile as e:
            raise CheckpointError(f"a truncated or corrupted zip archive ({e})") from None
        with zf:
            result = load_zip(zf, trust)
    else:
        result = load_legacy(f, total, trust)
    return finish(result, to_var)

