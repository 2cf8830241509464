"""What converted code reads of torch's runtime: ``torch.__version__``, ``torch.finfo``/``iinfo``,
``torch.get_default_dtype``, ``torch._assert``, the cuDNN switch, and where a tensor lives
(``x.device``, ``x.is_cuda``: Jittor places every Var by the global ``jt.flags.use_cuda``)."""
from __future__ import annotations

import warnings

import jittor as jt
import numpy as np

# The torch API level the shims reproduce: the torch the parity proofs run against
# (requirements-torch.txt; tests/shims/test_shims_runtime.py keeps the two equal).
TORCH_API_VERSION = "2.15.0"
# What converted code reads as ``torch.__version__``: that torch version with Jittor's as its local
# part ("2.15.0+jittor1.3.11.0"), so version-gated code takes the path of the torch the port was
# proven against: ``int(v.split('.')[0]) >= 2`` keeps ``collections.abc`` instead of ``torch._six``,
# ``packaging.version.parse`` reads it, and StyleGAN2-ADA's conv2d_gradfix (custom op on torch
# 1.7-1.9 only) takes its generic path.
torch_version = f"{TORCH_API_VERSION}+jittor{jt.__version__}"

# ``torch.backends.cudnn.enabled``: torch's cuDNN is never used under Jittor, so code gated on it
# (StyleGAN2-ADA's conv2d_gradfix custom op) takes its generic path.
cudnn_enabled = False


def _dtype_name(dtype) -> str:
    """numpy's name of a Jittor dtype: ``jt.float32`` (a function named after it) or ``x.dtype``."""
    return getattr(dtype, "__name__", None) if callable(dtype) else str(dtype)


class finfo:
    """``torch.finfo(dtype)``: machine limits of a floating Jittor dtype, as torch gives them
    (Python floats ``max``, ``min``, ``eps``, ``tiny``, ``smallest_normal``, ``resolution``; int
    ``bits``; ``dtype`` the name); float32 when no dtype is given, as in torch."""

    def __init__(self, dtype=None):
        try:
            with warnings.catch_warnings():  # numpy warns about float32 subnormals under Jittor
                warnings.simplefilter("ignore")
                info = np.finfo(np.dtype("float32" if dtype is None else _dtype_name(dtype)))
        except (TypeError, ValueError) as e:
            raise TypeError(f"finfo(): {dtype!r} is not a floating dtype") from e
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)
        self.dtype = info.dtype.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: limits of an integer Jittor dtype (Python ints ``max``, ``min``,
    ``bits``; ``dtype`` the name)."""

    def __init__(self, dtype):
        try:
            info = np.iinfo(np.dtype(_dtype_name(dtype)))
        except (TypeError, ValueError) as e:
            raise TypeError(f"iinfo(): {dtype!r} is not an integer dtype") from e
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = info.dtype.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def get_default_dtype():
    """``torch.get_default_dtype()``: Jittor's default float dtype, float32 (fixed per process)."""
    return jt.float32


def symbolic_assert(condition, message: str = "") -> None:
    """``torch._assert`` (``torch.Assert`` before torch 1.8): raise ``AssertionError(message)``
    when ``condition`` (a bool or a one-element Var) is false."""
    if not bool(condition.item() if isinstance(condition, jt.Var) else condition):
        raise AssertionError(message)


class Device:
    """What ``x.device`` gives converted code: torch's ``device`` with ``type`` and ``index``,
    equal to another Device or to its string (``x.device == "cpu"``, ``x.device.type == "cuda"``),
    printed as torch prints it."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, Device):  # torch.device(device)
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int):  # torch.device(0): a CUDA ordinal
            type, index = "cuda", type
        elif ":" in type:
            type, idx = type.split(":", 1)
            index = int(idx)
        self.type = type
        self.index = index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type={self.type!r}{idx})"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = Device(other)
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


def current_device() -> Device:
    """Where Jittor computes now: ``cuda:0`` under ``jt.flags.use_cuda``, else ``cpu``."""
    return Device("cuda", 0) if jt.flags.use_cuda else Device("cpu")


def _install_var_properties() -> None:
    # Research code branches on these (StyleGAN2-ADA's bias_act: ``x.device.type == 'cuda'``);
    # a Var has no device of its own, so they report the global placement.
    jt.Var.device = property(lambda self: current_device(), doc="torch's ``Tensor.device``")
    jt.Var.is_cuda = property(lambda self: bool(jt.flags.use_cuda), doc="torch's ``Tensor.is_cuda``")
    jt.Var.is_cpu = property(lambda self: not jt.flags.use_cuda, doc="torch's ``Tensor.is_cpu``")


_install_var_properties()
