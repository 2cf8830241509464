"""Tensor creation with torch's signatures (``torch.tensor``, typed ``Tensor`` classes, ranges), the
``Tensor.new_*`` factories with sizes as varargs, index constants (``tril_indices``), window
functions (``hann_window``, ...) and torch's constants (``pi``, ``e``, ``inf``, ``nan``, ``newaxis``)."""
from __future__ import annotations

import builtins as _b
import math
from typing import Optional

import jittor as jt
import numpy as np

from ._common import _cast, _device_free, _size
from ..runtime import _dtype_name  # jt.float64 is a function named after its dtype

__all__ = ['linspace', 'arange', 'full', 'tensor', 'as_tensor', 'from_numpy', 'Tensor', 'FloatTensor', 'LongTensor',
           'is_tensor', 'eye', 'empty_like', 'logspace', 'randint', 'new_zeros', 'new_ones', 'new_empty', 'new_full',
           'new_tensor', 'tril_indices', 'triu_indices', 'scalar_tensor', 'vander', 'pi', 'e', 'inf', 'nan', 'newaxis',
           'hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window', 'new']


def linspace(start, end, steps: int, *, dtype=None):
    """``torch.linspace``: float32 unless ``dtype`` (Jittor gives int32 for steps=1)."""
    if steps == 1:
        y = jt.array([float(start)]).float32()
    else:
        step = (float(end) - float(start)) / (steps - 1)
        i = jt.arange(steps).float32()
        # torch fills the second half from the end so that the last value is exactly ``end``.
        half = steps // 2
        y = jt.ternary(i < half, float(start) + step * i, float(end) - step * (steps - 1 - i))
    return _cast(y, dtype)


def arange(start, end=None, step=1, *, dtype=None):
    """``torch.arange``: float when any bound is a float (Jittor: int32), else int."""
    if end is None:
        start, end = 0, start
    is_float = _b.any(isinstance(v, float) for v in (start, end, step))
    n = _b.max(int(math.ceil((end - start) / step)), 0)
    y = jt.arange(n).float32() * step + start if is_float else jt.arange(start, end, step).int32()
    return _cast(y, dtype)


def full(size, fill_value, *, dtype=None):
    """``torch.full``: the dtype follows the fill value (bool/int/float) unless given."""
    size = tuple(size) if isinstance(size, (list, tuple)) else (size,)
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else "int32" if isinstance(fill_value, int) else "float32"
    return jt.full(size, fill_value, dtype)


_INT32 = np.iinfo(np.int32)


def _array(data, dtype=None) -> jt.Var:
    """``jt.array(data)``, also for a ``range`` (torch takes any sequence; Jittor raises
    ``type <range> not support``), e.g. ``torch.LongTensor(range(12))`` for node indices.

    Never a silently changed value: Jittor's ``auto_convert_64_to_32`` makes 64-bit input
    32-bit, which wraps an integer outside int32's range (``[2**40, 3]`` became ``[0, 3]``) and
    rounds a float to float32 before a ``dtype=float64`` cast.  Integers outside int32 stay int64,
    and data asked for as ``dtype`` (``"int64"``, ``"float64"``) is made in that type directly."""
    if isinstance(data, range):
        data = list(data)
    try:
        arr = np.asarray(data) if not isinstance(data, jt.Var) else None
    except (ValueError, TypeError):
        arr = None  # ragged or holding Vars: Jittor's own conversion
    if arr is None or arr.dtype == object:
        return jt.array(data)

    name = None if dtype is None else _dtype_name(dtype)
    if name in ("int64", "float64", "uint64"):
        arr = arr.astype(name)
    elif arr.dtype.kind in "iu" and arr.dtype.itemsize == 8 and arr.size \
            and (arr.max() > _INT32.max or arr.min() < _INT32.min):
        pass  # kept int64: int32 cannot hold these values
    else:
        return jt.array(data)
    with jt.flag_scope(auto_convert_64_to_32=0):
        return jt.array(arr)


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False):
    """``torch.tensor``: a copy of ``data`` (nested lists, numbers, numpy arrays, Vars).

    Python floats give float32 and ints int32 (Jittor's integer default; torch: int64), a
    Python scalar gives shape (1,) (Jittor has no 0-d Vars).  ``device`` is ignored
    (placement is global in Jittor)."""
    y = data.clone() if isinstance(data, jt.Var) else _array(data, dtype)
    if dtype is not None and str(y.dtype) != str(dtype):
        y = y.cast(dtype)
    return _device_free(requires_grad, y)


def as_tensor(data, dtype=None, device=None):
    """``torch.as_tensor``: a Var input is returned as is (cast when ``dtype`` differs); other
    data is copied (Jittor shares no memory with numpy)."""
    if isinstance(data, jt.Var):
        return data if dtype is None else data.cast(dtype)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """``torch.from_numpy`` (a copy; 64-bit arrays become 32-bit under Jittor's default policy).
    An ndarray subclass (``np.memmap``: nanoGPT's token files) is viewed as a plain ndarray, which
    is all ``jt.array`` takes."""
    if isinstance(ndarray, np.ndarray) and type(ndarray) is not np.ndarray:
        ndarray = ndarray.view(np.ndarray)
    return jt.array(ndarray)


class _TypedTensorMeta(type):
    """``isinstance(x, torch.FloatTensor)``: a Var of the class's dtype."""

    def __instancecheck__(cls, obj) -> bool:
        # torch.Tensor matches a tensor of any dtype (a float16 Var in StyleGAN2's fp16 blocks)
        dtype = cls.__dict__.get("_instance_dtype", cls._dtype)
        return isinstance(obj, jt.Var) and (dtype is None or str(obj.dtype) == dtype)


def _typed_tensor(dtype):
    class ctor(metaclass=_TypedTensorMeta):
        _dtype = dtype

        def __new__(cls, *args, device=None):
            if len(args) == 1 and not isinstance(args[0], int):
                if isinstance(args[0], jt.Var):
                    return args[0].cast(dtype)
                y = _array(args[0], dtype)
                # LongTensor is int32 here; values int32 cannot hold keep the int64 _array gave them
                return y if str(y.dtype) == "int64" and dtype == "int32" else y.cast(dtype)
            return jt.zeros(tuple(int(a) for a in args), dtype=dtype)
    return ctor


Tensor = _typed_tensor("float32")
Tensor.__name__ = "Tensor"
Tensor.__doc__ = "``torch.Tensor(data)`` / ``torch.Tensor(*sizes)`` (float32; sizes give zeros)."
Tensor._instance_dtype = None  # isinstance(x, torch.Tensor) holds for every dtype
FloatTensor = _typed_tensor("float32")
FloatTensor.__name__, FloatTensor.__doc__ = "FloatTensor", "``torch.FloatTensor`` (float32)."
LongTensor = _typed_tensor("int32")
LongTensor.__name__, LongTensor.__doc__ = "LongTensor", "``torch.LongTensor`` (Jittor's int32 index type)."


def is_tensor(obj) -> bool:
    """``torch.is_tensor``."""
    return isinstance(obj, jt.Var)


def eye(n: int, m: Optional[int] = None, *, dtype=None, device=None, requires_grad: bool = False):
    """``torch.eye`` (float32 unless ``dtype``)."""
    m = n if m is None else m
    y = (jt.arange(n).reshape(n, 1) == jt.arange(m).reshape(1, m)).cast(dtype or "float32")
    return _device_free(requires_grad, y)


def empty_like(input, *, dtype=None, device=None, requires_grad: bool = False):
    """``torch.empty_like`` (zeros: Jittor has no uninitialised allocation)."""
    return _device_free(requires_grad, jt.zeros(input.shape, dtype=dtype or input.dtype))


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None):
    """``torch.logspace``: ``base ** linspace(start, end, steps)``."""
    return _cast(jt.array(float(base)).float32() ** linspace(start, end, steps), dtype)


def randint(low=None, high=None, size=None, *, dtype=None, device=None, generator=None,
            requires_grad: bool = False):
    """``torch.randint(high, size)`` and ``randint(low, high, size)``, each positional or by
    keyword (Jittor only takes the second form).  Int32 unless ``dtype`` (Jittor's integer default)."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low  # randint(high, size=...)
    low = 0 if low is None else low
    if high is None or size is None:
        raise TypeError("randint() needs high and size")
    if generator is not None:
        raise TypeError("randint(generator=...): Jittor has one global seed")
    return jt.randint(int(low), int(high), shape=tuple(size), dtype=dtype or "int32")


def _grad(y, requires_grad: bool):
    return y.start_grad() if requires_grad else y.stop_grad()


def new_zeros(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_zeros(*size)``: sizes as varargs or one sequence; the input's dtype by default."""
    return _grad(jt.zeros(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_ones(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_ones(*size)``."""
    return _grad(jt.ones(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_empty(input, *size, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_empty(*size)`` (zeros: Jittor has no uninitialised allocation)."""
    return _grad(jt.zeros(_size(size), dtype=dtype or input.dtype), requires_grad)


def new_full(input, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
             pin_memory=False):
    """``Tensor.new_full(size, fill_value)``."""
    return _grad(jt.full(_size((size,)), fill_value, dtype=dtype or input.dtype), requires_grad)


def new_tensor(input, data, *, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory=False):
    """``Tensor.new_tensor(data)``: a copy of ``data`` with the input's dtype by default."""
    value = data.numpy() if isinstance(data, jt.Var) else np.asarray(data)
    return _grad(jt.array(value).cast(dtype or input.dtype), requires_grad)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """``torch.tril_indices`` (computed on the host: a constant)."""
    r, c = np.tril_indices(row, offset, col)
    return jt.array(np.stack([r, c]).astype(np.int64)).cast(dtype or "int64")


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """``torch.triu_indices`` (computed on the host: a constant)."""
    r, c = np.triu_indices(row, offset, col)
    return jt.array(np.stack([r, c]).astype(np.int64)).cast(dtype or "int64")


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad: bool = False, pin_memory=False):
    """``torch.scalar_tensor`` (float32 by default; shape (1,): Jittor has no 0-d Vars)."""
    return _grad(jt.array(float(s)).cast(dtype or "float32"), requires_grad)


def vander(x, N: Optional[int] = None, increasing: bool = False):
    """``torch.vander``: powers of ``x`` as columns (decreasing by default)."""
    n = int(x.shape[0]) if N is None else N
    powers = range(n) if increasing else range(n - 1, -1, -1)
    cols = [x ** p if p else jt.ones_like(x) for p in powers]
    return jt.stack(cols, 1) if n else jt.zeros((int(x.shape[0]), 0), dtype=x.dtype)


pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def _window(values: np.ndarray, dtype, requires_grad: bool):
    return _grad(jt.array(values.astype(np.float64)).cast(dtype or "float32"), requires_grad)


def _win_n(window_length: int, periodic: bool) -> int:
    return window_length + 1 if periodic else window_length


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False):
    """``torch.hann_window`` (periodic by default)."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False):
    """``torch.hamming_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """``torch.blackman_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    k = np.arange(n)
    w = 0.42 - 0.5 * np.cos(2 * np.pi * k / (n - 1)) + 0.08 * np.cos(4 * np.pi * k / (n - 1))
    return _window(w[:window_length], dtype, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """``torch.bartlett_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    k = np.arange(n)
    w = 1 - np.abs(2 * k / (n - 1) - 1)
    return _window(w[:window_length], dtype, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False):
    """``torch.kaiser_window``."""
    if window_length == 1:
        return _window(np.ones(1), dtype, requires_grad)
    n = _win_n(window_length, periodic)
    w = np.kaiser(n, beta)
    return _window(w[:window_length], dtype, requires_grad)


def new(input, *args, **kwargs):
    """``Tensor.new`` (deprecated): ``x.new(sizes...)`` zeros, ``x.new(data)`` a copy, of x's dtype."""
    if len(args) == 1 and not isinstance(args[0], int) and type(args[0]).__name__ != "NanoVector":
        return new_tensor(input, args[0])
    return new_empty(input, *args)
