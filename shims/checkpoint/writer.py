"""``save``: write torch's zip checkpoint format (``torch.load(weights_only=True)`` reads it)."""
from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import tempfile
import types
import zipfile
from typing import List, Tuple

import numpy as np

import jittor as jt

_DTYPE_STORAGE = {np.dtype(np.float32): "FloatStorage", np.dtype(np.float64): "DoubleStorage",
                  np.dtype(np.float16): "HalfStorage", np.dtype(np.int64): "LongStorage",
                  np.dtype(np.int32): "IntStorage", np.dtype(np.int16): "ShortStorage",
                  np.dtype(np.int8): "CharStorage", np.dtype(np.uint8): "ByteStorage",
                  np.dtype(np.bool_): "BoolStorage"}

class _Global:
    """A ``module.name`` reference written as a pickle GLOBAL without importing the module."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires reduce callables to be callable
        raise TypeError(f"{self.module}.{self.name} is only a name written into a checkpoint")


_REBUILD = _Global("torch._utils", "_rebuild_tensor_v2")
_GETATTR = _Global("builtins", "getattr")
_ORDERED_DICT = _Global("collections", "OrderedDict")


def _class_global(cls, where: str) -> _Global:
    """A class or function by import path; TypeError for one defined inside a function or a
    lambda (not importable)."""
    if "<" in cls.__qualname__ or cls.__module__ is None:
        raise TypeError(f"shims.save: {where} is a {cls.__qualname__}, defined inside a function: "
                        "it cannot be found by import path when loading")
    return _Global(cls.__module__, cls.__qualname__)


class _ObjectImage:
    """A Python object as pickle protocol 2 writes one (``torch.save(corpus)``, ``torch.save(model)``):
    its class by import path, then its ``__dict__`` (values saved as :func:`_plain` saves them).
    A Jittor module is one too: its attributes (submodules, Vars, settings) are its whole state,
    so loading it back never needs its constructor's arguments."""

    def __init__(self, obj, where: str, memo: dict):
        self.cls = _class_global(type(obj), where)
        memo[id(obj)] = self  # before the state: an object reachable from itself is written once
        self.state = {k: _plain(v, f"{where}.{k}", memo) for k, v in vars(obj).items()}


class _MethodImage:
    """A bound method stored as a value (``m.flatten_parameters = self.noop``): pickled as
    ``getattr(owner, name)``, as pickle's own ``method.__reduce__`` writes it."""

    def __init__(self, method, where: str, memo: dict):
        self.owner = _plain(method.__self__, f"{where}.__self__", memo)
        self.name = method.__func__.__name__


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
            # np.ascontiguousarray would turn a 0-d array into shape (1,)
            arr = obj if obj.flags.c_contiguous else np.ascontiguousarray(obj)
            if arr.dtype not in _DTYPE_STORAGE:
                raise pickle.PicklingError(f"shims.save: dtype {arr.dtype} has no torch storage")
            key = str(len(self.storages))
            self.storages.append((key, arr))
            ref = _StorageRef(key, _DTYPE_STORAGE[arr.dtype], arr.size)
            stride = tuple(s // arr.itemsize for s in arr.strides) if arr.ndim else ()
            if arr.size == 0:
                stride = tuple(int(np.prod(arr.shape[i + 1:])) for i in range(arr.ndim))
            return (_REBUILD, (ref, 0, tuple(arr.shape), stride, False, collections.OrderedDict()))
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def save_module_image(self, obj):
        """An object as protocol 2 pickles one: its class, NEWOBJ, BUILD of its state."""
        self.save(obj.cls)
        self.write(pickle.EMPTY_TUPLE + pickle.NEWOBJ)
        self.memoize(obj)
        self.save(obj.state)
        self.write(pickle.BUILD)

    def save_method_image(self, obj):
        """A bound method: REDUCE of ``getattr`` on (owner, name)."""
        self.save_reduce(_GETATTR, (obj.owner, obj.name), obj=obj)

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[_Global] = save_global
    dispatch[_ObjectImage] = save_module_image
    dispatch[_MethodImage] = save_method_image


def _plain(obj, where="obj", memo=None):
    """``obj`` as the pickler writes it: containers copied, objects and methods as images.

    ``memo`` maps ``id`` of each object already imaged to its image, so an object reached twice
    (a submodule shared, a method of an enclosing object) is one object in the file, as in torch's.
    """
    memo = {} if memo is None else memo
    if id(obj) in memo:
        return memo[id(obj)]
    if isinstance(obj, (jt.Var, np.ndarray, str, bytes, int, float, bool, complex, type(None))):
        return obj
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _plain(v, f"{where}[{k!r}]", memo)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _plain(v, f"{where}[{k!r}]", memo) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        items = [_plain(v, f"{where}[{i}]", memo) for i, v in enumerate(obj)]
        return items if isinstance(obj, list) else tuple(items)
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_plain(v, f"{where} item", memo) for v in obj)
    if isinstance(obj, (types.FunctionType, type)) and not isinstance(obj, _Global):
        return _class_global(obj, where)  # by reference, as pickle writes functions and classes
    if isinstance(obj, types.MethodType):
        return _MethodImage(obj, where, memo)
    if isinstance(obj, jt.Module) or _plain_object(obj):
        return _ObjectImage(obj, where, memo)
    raise TypeError(f"shims.save: {where} is a {type(obj).__name__}; only Vars/arrays, numbers, "
                    "strings, Jittor modules, dict/list/tuple containers, module-level functions and "
                    "classes, and plain objects (state in __dict__, no __reduce__ of their own) can "
                    "be saved in torch's format")


def _plain_object(obj) -> bool:
    """An instance whose pickled form is its class and ``__dict__``: no ``__reduce__``/
    ``__reduce_ex__``/``__getstate__`` of its own (those could name any callable to run on load)."""
    cls = type(obj)
    own = any(getattr(cls, m, None) is not getattr(object, m, None)
              for m in ("__reduce__", "__reduce_ex__", "__getstate__"))
    return not own and isinstance(getattr(obj, "__dict__", None), dict) and not isinstance(obj, type) \
        and not hasattr(cls, "__slots__")


def save(obj, f) -> None:
    """Write ``obj`` in torch's zip checkpoint format, to a path or a binary file object.

    Torch behaviour reproduced: ``torch.save(obj, f)`` for state dicts and nested containers
    of tensors — ``torch.load(f, weights_only=True)`` reads it back with the same structure,
    dtypes, shapes (0-d included) and values (Vars/arrays become tensors).  An object of the
    program's own — a whole model (``torch.save(model)``), a dataset cache (``torch.save(corpus)``),
    ``torch.save([model, criterion, optimizer])`` — is pickled as torch pickles it: its class by
    import path, then its ``__dict__`` (submodules, Vars, settings; an object reached twice is
    written once, a bound method as ``getattr(owner, name)``, a module-level function or class by
    reference).  ``shims.load(f, weights_only=False)`` (an explicit trust flag, as torch's) makes
    it again with ``__new__`` and that state, never calling ``__init__``; torch itself cannot load
    a Jittor model's file (the class is a Jittor one).  A path is written
    atomically: a temporary file beside it is renamed over it once complete, so an interrupted
    save never leaves a half-written file in place of a good one.  Raises TypeError naming the
    offending entry for anything else (objects with a ``__reduce__`` of their own, classes and
    functions defined in functions, lambdas).
    """
    obj = _plain(obj)
    buf = io.BytesIO()
    pickler = _TorchPickler(buf)
    pickler.dump(obj)
    if not isinstance(f, (str, os.PathLike)):
        _write_zip(f, buf.getvalue(), pickler.storages)
        return
    target = os.path.realpath(os.fspath(f))  # write through a symlink, keep the link
    directory, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            _write_zip(out, buf.getvalue(), pickler.storages)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _mode_for(target: str) -> int:
    """The existing file's mode, or what ``open(target, 'w')`` would have created."""
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_zip(f, pickle_bytes: bytes, storages) -> None:
    name = "archive"
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as zf:
        _write_aligned(zf, f"{name}/data.pkl", pickle_bytes)
        _write_aligned(zf, f"{name}/byteorder", b"little")
        for key, arr in storages:
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


