"""Torch checkpoints without torch: a safe ``.pth`` reader, a torch-readable writer, key mapping.

* :func:`load` reads files written by ``torch.save`` (zip format and the legacy
  ``_use_new_zipfile_serialization=False`` format) through a restricted unpickler that builds
  tensors, storages, ``OrderedDict`` and plain containers/scalars only.  Any other global
  (``os.system``, ``builtins.eval``, a model class) is refused with :class:`ForbiddenGlobalError`
  before anything is called: ``jt.load`` on 1.3.11 unpickles without restriction and runs
  whatever a crafted file asks for.
* :func:`save` writes the torch zip format, which ``torch.load(path, weights_only=True)`` reads.
* :func:`load_state_dict` copies a state dict into a module like torch's
  ``Module.load_state_dict(strict=...)``, mapping DataParallel's ``module.`` prefix, weight-norm
  keys (``weight_g``/``weight_v``, ``parametrizations.weight.original0/1``) and buffers.
"""
from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import zipfile
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

import jittor as jt

__all__ = ["load", "save", "load_state_dict", "ForbiddenGlobalError", "IncompatibleKeys"]


class ForbiddenGlobalError(pickle.UnpicklingError):
    """A checkpoint asked the unpickler for a global that is not on the allow-list."""


# Storage class name -> numpy dtype as stored on disk (little-endian).  bfloat16 is read as raw
# uint16 and widened to float32 (numpy has no bfloat16; the widening is exact).
_STORAGE_DTYPES = {
    "FloatStorage": np.dtype("<f4"), "DoubleStorage": np.dtype("<f8"),
    "HalfStorage": np.dtype("<f2"), "BFloat16Storage": np.dtype("<u2"),
    "LongStorage": np.dtype("<i8"), "IntStorage": np.dtype("<i4"),
    "ShortStorage": np.dtype("<i2"), "CharStorage": np.dtype("i1"),
    "ByteStorage": np.dtype("u1"), "BoolStorage": np.dtype("?"),
}
_DTYPE_STORAGE = {np.dtype(np.float32): "FloatStorage", np.dtype(np.float64): "DoubleStorage",
                  np.dtype(np.float16): "HalfStorage", np.dtype(np.int64): "LongStorage",
                  np.dtype(np.int32): "IntStorage", np.dtype(np.int16): "ShortStorage",
                  np.dtype(np.int8): "CharStorage", np.dtype(np.uint8): "ByteStorage",
                  np.dtype(np.bool_): "BoolStorage"}


class _StorageType:
    """Stand-in for a torch storage class (``torch.FloatStorage``) named in a pickle."""

    def __init__(self, name: str):
        self.name = name
        self.dtype = _STORAGE_DTYPES[name]


class _Storage:
    """One storage of a checkpoint: raw elements as a 1-D numpy array (filled in lazily)."""

    def __init__(self, stype: _StorageType, numel: int):
        self.stype = stype
        self.numel = numel
        self.array: Optional[np.ndarray] = None


class _StorageView:
    """A legacy-format view into a root storage (``view_metadata``)."""

    def __init__(self, root: _Storage, offset: int, numel: int):
        self.root, self.offset, self.numel = root, offset, numel
        self.stype = root.stype

    @property
    def array(self) -> Optional[np.ndarray]:
        if self.root.array is None:
            return None
        return self.root.array[self.offset:self.offset + self.numel]


class _PendingTensor:
    """A tensor whose storage bytes may not be read yet; materialised after unpickling."""

    def __init__(self, storage, offset: int, size: Tuple[int, ...], stride: Tuple[int, ...]):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

    def materialise(self, where: str, copy: bool = True) -> np.ndarray:
        data = self.storage.array
        if data is None:
            raise pickle.UnpicklingError(f"{where}: a tensor refers to a storage the file does not contain")
        if len(self.size) != len(self.stride) or any(s < 0 for s in self.size) \
                or any(s < 0 for s in self.stride) or self.offset < 0:
            raise pickle.UnpicklingError(f"{where}: invalid tensor geometry size={self.size} "
                                         f"stride={self.stride} offset={self.offset}")
        if 0 not in self.size:
            last = self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride))
            if last >= data.shape[0]:
                raise pickle.UnpicklingError(
                    f"{where}: tensor view (size={self.size}, stride={self.stride}, "
                    f"offset={self.offset}) reads past its storage of {data.shape[0]} elements")
            item = data.itemsize
            numel = int(np.prod(self.size))
            contiguous = [int(np.prod(self.size[i + 1:])) for i in range(len(self.size))]
            if all(st == c for n, st, c in zip(self.size, self.stride, contiguous) if n > 1):
                out = data[self.offset:self.offset + numel].reshape(self.size)
            else:
                out = np.lib.stride_tricks.as_strided(
                    data[self.offset:], shape=self.size, strides=[s * item for s in self.stride],
                    writeable=False)
            if copy:  # a writable array of its own (the storage bytes are read-only and shared)
                out = np.array(out, copy=True)
        else:
            out = np.zeros(self.size, data.dtype)
        if self.storage.stype.name == "BFloat16Storage":
            out = (out.astype(np.uint32) << 16).view(np.float32)
        return out


class _TorchClassMarker:
    """Stand-in for ``torch.Tensor``/``torch.nn.Parameter`` named by ``_rebuild_from_type_v2``."""

    def __init__(self, name: str):
        self.name = name


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    if not isinstance(storage, (_Storage, _StorageView)):
        raise pickle.UnpicklingError("_rebuild_tensor_v2 called without a storage")
    if not all(isinstance(v, int) for v in (storage_offset, *size, *stride)):
        raise pickle.UnpicklingError("_rebuild_tensor_v2: size/stride/offset must be integers")
    return _PendingTensor(storage, int(storage_offset), tuple(size), tuple(stride))


def _rebuild_parameter(data, requires_grad=True, backward_hooks=None, state=None):
    if not isinstance(data, _PendingTensor):
        raise pickle.UnpicklingError("_rebuild_parameter expects a tensor")
    return data


def _rebuild_from_type_v2(func, new_type, args, state):
    if func is not _rebuild_tensor_v2 or not isinstance(new_type, _TorchClassMarker):
        raise pickle.UnpicklingError("_rebuild_from_type_v2 with an unexpected rebuild function")
    return func(*args)


def _codecs_encode(text, encoding="utf-8"):
    # Protocol-2 pickles spell ``bytes`` as _codecs.encode(str, 'latin1').
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise pickle.UnpicklingError("_codecs.encode with unexpected arguments")
    return text.encode(encoding)


def _torch_size(*args):
    return tuple(*args)


_ALLOWED: Dict[Tuple[str, str], Any] = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch", "Tensor"): _TorchClassMarker("torch.Tensor"),
    ("torch.nn.parameter", "Parameter"): _TorchClassMarker("torch.nn.Parameter"),
    ("torch", "Size"): _torch_size,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex, ("builtins", "slice"): slice,
    ("__builtin__", "set"): set, ("__builtin__", "frozenset"): frozenset,
    ("_codecs", "encode"): _codecs_encode,
}
for _name in _STORAGE_DTYPES:
    _ALLOWED[("torch", _name)] = _StorageType(_name)


class _SafeUnpickler(pickle.Unpickler):
    """Unpickler that resolves only allow-listed globals and torch storage ids."""

    def __init__(self, file, where: str, storage_loader):
        super().__init__(file, encoding="utf-8")
        self._where = where
        self._storage_loader = storage_loader

    def find_class(self, module: str, name: str):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise ForbiddenGlobalError(
                f"{self._where}: refusing to unpickle global '{module}.{name}': shims.load only "
                "builds tensors, storages, OrderedDict and plain containers/scalars "
                "(the file may contain code; load it with torch only if you trust it)") from None

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise pickle.UnpicklingError(f"{self._where}: unsupported persistent id {pid!r:.80}")
        return self._storage_loader(pid[1:])


def _check_stype(stype, where: str) -> _StorageType:
    if not isinstance(stype, _StorageType):
        raise pickle.UnpicklingError(f"{where}: persistent id names no storage type")
    return stype


def _as_str(v) -> str:
    return v.decode("ascii") if isinstance(v, bytes) else str(v)


def _load_zip(zf: zipfile.ZipFile, where: str):
    names = zf.namelist()
    pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
    if len(pkl) != 1:
        raise pickle.UnpicklingError(f"{where}: not a torch zip checkpoint (no unique <name>/data.pkl)")
    prefix = pkl[0][:-len("data.pkl")]
    storages: Dict[str, _Storage] = {}

    def load_storage(data):
        if len(data) < 4:
            raise pickle.UnpicklingError(f"{where}: malformed storage id")
        stype, key, _location, numel = data[:4]
        stype = _check_stype(stype, where)
        key = _as_str(key)
        if key not in storages:
            member = f"{prefix}data/{key}"
            if member not in names:
                raise pickle.UnpicklingError(f"{where}: storage '{key}' missing from the archive")
            raw = zf.read(member)
            if len(raw) % stype.dtype.itemsize:
                raise pickle.UnpicklingError(f"{where}: storage '{key}' has a partial element")
            st = _Storage(stype, len(raw) // stype.dtype.itemsize)
            st.array = np.frombuffer(raw, dtype=stype.dtype)
            storages[key] = st
        st = storages[key]
        if st.stype.name != stype.name:
            # torch reinterprets the same bytes as the other dtype (rare: shared untyped storage)
            view = _Storage(stype, len(st.array.tobytes()) // stype.dtype.itemsize)
            view.array = np.frombuffer(st.array.tobytes(), dtype=stype.dtype)
            return view
        return st

    with zf.open(pkl[0]) as f:
        return _SafeUnpickler(io.BytesIO(f.read()), where, load_storage).load()


_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c


def _load_legacy(f, where: str):
    def plain():
        return _SafeUnpickler(f, where, lambda pid: (_ for _ in ()).throw(
            pickle.UnpicklingError(f"{where}: storage id outside the main pickle"))).load()

    if plain() != _LEGACY_MAGIC:
        raise pickle.UnpicklingError(f"{where}: not a torch checkpoint (bad magic number)")
    if plain() != 1001:
        raise pickle.UnpicklingError(f"{where}: unsupported legacy torch protocol version")
    sys_info = plain()
    if isinstance(sys_info, dict) and sys_info.get("little_endian") is False:
        raise pickle.UnpicklingError(f"{where}: big-endian legacy checkpoints are not supported")
    roots: Dict[str, _Storage] = {}
    views: Dict[str, _StorageView] = {}

    def load_storage(data):
        if len(data) < 5:
            raise pickle.UnpicklingError(f"{where}: malformed legacy storage id")
        stype, key, _location, numel, view_meta = data[:5]
        stype = _check_stype(stype, where)
        key = _as_str(key)
        if key not in roots:
            roots[key] = _Storage(stype, int(numel))
        if view_meta is None:
            return roots[key]
        vkey, offset, vsize = view_meta
        vkey = _as_str(vkey)
        if vkey not in views:
            views[vkey] = _StorageView(roots[key], int(offset), int(vsize))
        return views[vkey]

    result = _SafeUnpickler(f, where, load_storage).load()
    keys = plain()
    if not isinstance(keys, list):
        raise pickle.UnpicklingError(f"{where}: malformed legacy storage key list")
    for key in keys:
        key = _as_str(key)
        if key not in roots:
            raise pickle.UnpicklingError(f"{where}: storage key {key!r} was never referenced")
        st = roots[key]
        head = f.read(8)
        if len(head) != 8:
            raise pickle.UnpicklingError(f"{where}: truncated storage {key!r}")
        (count,) = struct.unpack("<q", head)
        nbytes = count * st.stype.dtype.itemsize
        raw = f.read(nbytes)
        if count < 0 or len(raw) != nbytes:
            raise pickle.UnpicklingError(f"{where}: truncated storage {key!r}")
        st.array = np.frombuffer(raw, dtype=st.stype.dtype)
    return result


def _finish(obj, to_var: bool, where: str):
    if isinstance(obj, _PendingTensor):
        arr = obj.materialise(where, copy=not to_var)  # jt.array copies by itself
        return jt.array(arr) if to_var else arr
    if isinstance(obj, (_Storage, _StorageView)):
        raise pickle.UnpicklingError(f"{where}: bare storages are not supported; save tensors")
    if isinstance(obj, collections.OrderedDict):
        out = collections.OrderedDict((k, _finish(v, to_var, where)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):
            out._metadata = obj._metadata
        return out
    if isinstance(obj, dict):
        return {k: _finish(v, to_var, where) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finish(v, to_var, where) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_finish(v, to_var, where) for v in obj)
    return obj


def load(path, map_location=None, *, to: str = "jittor", weights_only: bool = True, **_ignored):
    """Read a ``torch.save`` file (zip or legacy format) without torch, safely.

    Torch behaviour reproduced: ``torch.load(path, weights_only=True)`` — the same nested
    containers come back, each tensor as a ``jt.Var`` (``to="jittor"``, the default) or a numpy
    array (``to="numpy"``, bit-exact for every dtype).  Views keep torch's values (offset and
    strided views into a shared storage are copied out).  bfloat16 tensors come back as float32
    (numpy has no bfloat16; the widening is exact).  With ``to="jittor"``, int64/float64 become
    int32/float32 (Jittor's ``auto_convert_64_to_32``).  ``map_location`` is accepted and ignored
    (Jittor decides placement globally).  Raises :class:`ForbiddenGlobalError` for any global
    outside tensors/storages/OrderedDict/containers, before anything from the file runs.
    """
    if to not in ("jittor", "numpy"):
        raise ValueError(f"shims.load: to= must be 'jittor' or 'numpy', got {to!r}")
    if not weights_only:
        raise ValueError("shims.load: weights_only=False is not supported (it would run code "
                         "from the file); only tensors and containers can be loaded")
    where = os.fspath(path) if isinstance(path, (str, os.PathLike)) else "<file object>"
    if isinstance(path, (str, os.PathLike)):
        with open(path, "rb") as f:
            data = f.read()
    else:
        data = path.read()
    buf = io.BytesIO(data)
    if zipfile.is_zipfile(buf):
        buf.seek(0)
        with zipfile.ZipFile(buf) as zf:
            result = _load_zip(zf, where)
    else:
        buf.seek(0)
        result = _load_legacy(buf, where)
    return _finish(result, to == "jittor", where)


# ----------------------------------------------------------------------------- writing

class _Global:
    """A ``module.name`` reference written as a pickle GLOBAL without importing the module."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires reduce callables to be callable
        raise TypeError(f"{self.module}.{self.name} is only a name written into a checkpoint")


_REBUILD = _Global("torch._utils", "_rebuild_tensor_v2")
_ORDERED_DICT = _Global("collections", "OrderedDict")


class _StorageRef:
    def __init__(self, key: str, stype: str, numel: int):
        self.key, self.stype, self.numel = key, stype, numel


class _TorchPickler(pickle._Pickler):  # the Python pickler lets save_global be overridden
    """Pickler writing arrays/Vars as torch tensors backed by zip-archive storages."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages: List[Tuple[str, np.ndarray]] = []

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", obj.stype), obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, jt.Var):
            obj = obj.numpy()
        if isinstance(obj, np.ndarray):
            arr = np.ascontiguousarray(obj)
            if arr.dtype not in _DTYPE_STORAGE:
                raise pickle.PicklingError(f"shims.save: dtype {arr.dtype} has no torch storage")
            key = str(len(self.storages))
            self.storages.append((key, arr))
            ref = _StorageRef(key, _DTYPE_STORAGE[arr.dtype], arr.size)
            stride = tuple(s // arr.itemsize for s in arr.strides) if arr.ndim else ()
            if arr.size == 0:
                stride = tuple(int(np.prod(arr.shape[i + 1:])) for i in range(arr.ndim))
            return (_REBUILD, (ref, 0, tuple(arr.shape), stride, False, collections.OrderedDict()))
        if isinstance(obj, _Global):
            return NotImplemented
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
            self.memoize(obj)
            return
        super().save_global(obj, name)

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[_Global] = save_global


def _plain(obj, where="obj"):
    if isinstance(obj, (jt.Var, np.ndarray, str, bytes, int, float, bool, complex, type(None))):
        return obj
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _plain(v, f"{where}[{k!r}]")) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _plain(v, f"{where}[{k!r}]") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        items = [_plain(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        return items if isinstance(obj, list) else tuple(items)
    raise TypeError(f"shims.save: {where} is a {type(obj).__name__}; only Vars/arrays, numbers, "
                    "strings and dict/list/tuple containers can be saved in torch's format")


def save(obj, path) -> None:
    """Write ``obj`` in torch's zip checkpoint format.

    Torch behaviour reproduced: ``torch.save(obj, path)`` for state dicts and nested containers
    of tensors — ``torch.load(path, weights_only=True)`` reads it back with the same structure,
    dtypes and values (Vars/arrays become tensors).  Raises TypeError naming the offending
    entry for anything else (modules, arbitrary objects).
    """
    obj = _plain(obj)
    buf = io.BytesIO()
    pickler = _TorchPickler(buf)
    pickler.dump(obj)
    name = "archive"
    with zipfile.ZipFile(os.fspath(path), "w", zipfile.ZIP_STORED) as zf:
        _write_aligned(zf, f"{name}/data.pkl", buf.getvalue())
        _write_aligned(zf, f"{name}/byteorder", b"little")
        for key, arr in pickler.storages:
            _write_aligned(zf, f"{name}/data/{key}", arr.astype(arr.dtype.newbyteorder("<")).tobytes())
        _write_aligned(zf, f"{name}/version", b"3\n")
        _write_aligned(zf, f"{name}/.data/serialization_id", b"0" * 40)


def _write_aligned(zf: zipfile.ZipFile, name: str, data: bytes, align: int = 64) -> None:
    # torch's reader memory-maps records and expects 64-byte-aligned payloads, like its writer.
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    header = 30 + len(name.encode()) + 4  # local header + name + our extra field's own header
    pad = (-(zf.fp.tell() + header)) % align
    info.extra = struct.pack("<HH", 0x5846, pad) + b"\0" * pad
    zf.writestr(info, data)


# ----------------------------------------------------------------------------- state dicts

class IncompatibleKeys(NamedTuple):
    """torch's ``_IncompatibleKeys``: what ``load_state_dict`` could not match."""

    missing_keys: List[str]
    unexpected_keys: List[str]


def _to_array(value, key: str) -> np.ndarray:
    if isinstance(value, jt.Var):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (int, float, bool, list)):
        return np.asarray(value)
    raise TypeError(f"load_state_dict: value of '{key}' is a {type(value).__name__}, "
                    "expected a jt.Var or numpy array")


def _norm_except_dim0(v: np.ndarray) -> np.ndarray:
    flat = v.reshape(v.shape[0], -1).astype(np.float64)
    return np.sqrt((flat * flat).sum(1)).reshape((v.shape[0],) + (1,) * (v.ndim - 1))


def _map_keys(sd: Dict[str, Any], own: Dict[str, jt.Var]) -> Dict[str, Any]:
    """Rename checkpoint keys onto the module's own key space (see :func:`load_state_dict`)."""
    keys = list(sd)
    if keys and all(k.startswith("module.") for k in keys) and not any(k.startswith("module.") for k in own):
        sd = {k[len("module."):]: v for k, v in sd.items()}
    out: Dict[str, Any] = {}
    for k, v in sd.items():
        if ".parametrizations." in k or k.startswith("parametrizations."):
            # torch.nn.utils.parametrizations.weight_norm: <m>.parametrizations.<w>.original0/1
            head, _, tail = k.rpartition("parametrizations.")
            pname, _, which = tail.partition(".")
            suffix = {"original0": "_g", "original1": "_v"}.get(which)
            if suffix is not None and head + pname + suffix in own:
                out[head + pname + suffix] = v
                continue
        out[k] = v
    for k in list(out):
        # weight_g/weight_v in the file but a plain weight in the module: fold them (torch's formula)
        if k.endswith("_g") and k[:-2] + "_v" in out and k[:-2] in own and k not in own:
            g = _to_array(out.pop(k), k)
            v = _to_array(out.pop(k[:-2] + "_v"), k[:-2] + "_v")
            out[k[:-2]] = (v * (g / _norm_except_dim0(v))).astype(v.dtype)
    for k in list(own):
        # plain weight in the file, weight_g/weight_v in the module: split it
        if k.endswith("_g") and k[:-2] + "_v" in own and k[:-2] in out and k not in out:
            w = _to_array(out.pop(k[:-2]), k[:-2])
            out[k] = _norm_except_dim0(w).astype(w.dtype)
            out[k[:-2] + "_v"] = w
    return out


def load_state_dict(module, state_dict, strict: bool = True) -> IncompatibleKeys:
    """Copy ``state_dict`` into ``module`` in place; torch's ``Module.load_state_dict``.

    Torch behaviour reproduced: every module key (parameters and persistent buffers) is looked up;
    with ``strict=True`` a missing, unexpected or mis-shaped key raises ``RuntimeError`` listing
    them all ("Error(s) in loading state_dict for <Class>: ..."); with ``strict=False`` only shape
    mismatches raise.  Returns ``IncompatibleKeys(missing_keys, unexpected_keys)``.
    Key mapping: a DataParallel ``module.`` prefix is stripped; ``weight_g``/``weight_v`` and
    torch's ``parametrizations.weight.original0/1`` map onto the module's weight-norm keys (or
    are folded into a plain ``weight``); ``num_batches_tracked`` is ignored when the module has
    no such buffer (Jittor's own BatchNorm).  Values keep the module Vars' identity and dtype.
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"load_state_dict: expected a dict, got {type(state_dict).__name__}")
    own = module.state_dict()
    sd = _map_keys(dict(state_dict), own)
    missing = [k for k in own if k not in sd]
    unexpected = [k for k in sd if k not in own
                  and not (k.endswith("num_batches_tracked"))]
    mismatched = []
    for k, target in own.items():
        if k not in sd:
            continue
        arr = _to_array(sd[k], k)
        if tuple(arr.shape) != tuple(target.shape) and not (arr.size == 1 and target.numel() == 1):
            mismatched.append(f"size mismatch for {k}: copying a param with shape {tuple(arr.shape)} "
                              f"from checkpoint, the shape in current model is {tuple(target.shape)}.")
    errors = list(mismatched)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    # No jt.no_grad() here: an update made under no_grad turns the parameter stop_grad
    # (measured), and jt.array values carry no graph anyway.
    for k, target in own.items():
        if k in sd:
            arr = _to_array(sd[k], k).reshape(tuple(target.shape))
            target.update(jt.array(arr.astype(np.dtype(str(target.dtype)), copy=False)))
    jt.sync(list(own.values()))
    return IncompatibleKeys(missing, unexpected)
