"""A script written for one GPU, run on a machine without CUDA (the torch side of parity).

Research code places things on the GPU unconditionally: ``.cuda()``, ``.to(torch.device('cuda'))``,
``torch.zeros(n, device='cuda')``, ``torch.from_numpy(a).pin_memory().to(device)``,
``torch.cuda.set_device(0)``, ``torch.cuda.Event`` timings, and NeuS's
``torch.set_default_tensor_type('torch.cuda.FloatTensor')``, after which every factory call makes
a CUDA tensor.  Its Jittor port places nothing (one global ``jt.flags.use_cuda``), so on a CPU
machine the port runs; :func:`cuda_as_cpu` lets the torch reference run there too, on the CPU,
with the same numbers as far as the CPU kernels go.

Plain wrappers of the functions that take a device, not a ``TorchFunctionMode``: a mode sees
every torch call (its Python dispatch made StyleGAN2-ADA's torch side 6.5 times slower) and is
handed the class's current attribute, so it re-entered the tracer's own draw wrappers.
"""
from __future__ import annotations

import contextlib
import functools
import time
from typing import Any, Iterator

import torch

from porter.prove.common import patched

_CPU = torch.device("cpu")
#: ``torch.cuda.<Name>Tensor`` -> ``torch.<Name>Tensor`` (the legacy tensor types)
_TYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
#: torch's functions that take ``device=``: a GPU device there becomes the CPU
FACTORIES = ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
             "logspace", "eye", "tensor", "as_tensor", "empty_like", "zeros_like", "ones_like", "full_like",
             "rand_like", "randn_like", "randint_like", "empty_strided", "scalar_tensor", "tril_indices",
             "triu_indices")
#: ``Tensor`` methods that take ``device=``
TENSOR_FACTORIES = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor")


def _is_cuda(device: Any) -> bool:
    """Whether ``device`` (a ``torch.device``, a string such as ``'cuda:1'``, or an ordinal) names a GPU."""
    if isinstance(device, torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device.split(":")[0] == "cuda"
    return isinstance(device, int) and not isinstance(device, bool)


def _cpu(device: Any) -> Any:
    """``device`` with a GPU replaced by the CPU."""
    return _CPU if _is_cuda(device) else device


def cpu_tensor_type(t: Any) -> Any:
    """The CPU counterpart of a legacy tensor type (``'torch.cuda.FloatTensor'`` or the class
    ``torch.cuda.FloatTensor`` -> ``'torch.FloatTensor'``); any other ``t`` unchanged."""
    name = t if isinstance(t, str) else f"{getattr(t, '__module__', '')}.{getattr(t, '__name__', '')}"
    for kind in _TYPES:
        if name == f"torch.cuda.{kind}Tensor":
            return f"torch.{kind}Tensor"
    return t


def _on_cpu(fn):
    """``fn`` with a GPU ``device=`` read as the CPU."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        return fn(*args, **kwargs)
    return call


def _to_cpu(fn):
    """``Tensor.to`` with a GPU device (positional or ``device=``) read as the CPU; ``Module.to``
    moves its tensors with it."""
    @functools.wraps(fn)
    def to(self, *args, **kwargs):
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        return fn(self, *(_cpu(a) for a in args), **kwargs)
    return to


class CpuStream:
    """A CUDA stream on a machine without CUDA: every operation already ran in order."""

    def __init__(self, *args, **kwargs):
        pass

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def synchronize(self) -> None:
        """Nothing to wait for."""


class CpuEvent:
    """``torch.cuda.Event`` on the CPU: ``record`` notes the wall time."""

    def __init__(self, *args, **kwargs):
        self._at = None

    def record(self, stream=None) -> None:
        """Note the time."""
        self._at = time.perf_counter()

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """Always complete."""
        return True

    def elapsed_time(self, end: "CpuEvent") -> float:
        """Milliseconds from this event to ``end``."""
        return (end._at - self._at) * 1000.0


@contextlib.contextmanager
def cuda_as_cpu() -> Iterator[None]:
    """Within the block, on a machine without CUDA, code written for one GPU runs on the CPU:
    ``Tensor.cuda()``/``Module.cuda()`` return their receiver, a GPU ``device=`` (torch's
    factories, ``Tensor.new_*``) or ``.to(device)`` means the CPU, ``pin_memory()`` returns the
    tensor, ``torch.cuda.set_device``/``synchronize`` and the peak-memory statistics do nothing,
    ``torch.set_default_tensor_type`` of a CUDA type sets its CPU type and ``set_default_device``
    of a GPU the CPU, and CUDA streams and events are stand-ins (MCCNet's ``.cuda()`` in
    ``forward``, HiSD's prefetching ``data_prefetcher``, NeuS's default CUDA tensor type,
    StyleGAN2-ADA's named device and event timings).  With CUDA, nothing changes."""
    if torch.cuda.is_available():
        yield
        return
    set_type, set_device = torch.set_default_tensor_type, torch.set_default_device
    patches = [(torch.Tensor, "cuda", lambda self, *a, **k: self),
               (torch.nn.Module, "cuda", lambda self, *a, **k: self),
               (torch.Tensor, "record_stream", lambda self, *a, **k: None),
               (torch.Tensor, "pin_memory", lambda self, *a, **k: self),
               (torch.Tensor, "to", _to_cpu(torch.Tensor.to)),
               (torch.cuda, "synchronize", lambda *a, **k: None),
               (torch.cuda, "set_device", lambda *a, **k: None),
               (torch.cuda, "reset_peak_memory_stats", lambda *a, **k: None),
               (torch.cuda, "max_memory_allocated", lambda *a, **k: 0),
               (torch, "set_default_tensor_type", lambda t: set_type(cpu_tensor_type(t))),
               (torch, "set_default_device", lambda d: set_device(_cpu(d))),
               (torch.cuda, "Stream", CpuStream),
               (torch.cuda, "current_stream", lambda *a, **k: CpuStream()),
               (torch.cuda, "stream", lambda *a, **k: contextlib.nullcontext()),
               (torch.cuda, "Event", CpuEvent)]
    patches += [(torch, name, _on_cpu(getattr(torch, name))) for name in FACTORIES if hasattr(torch, name)]
    patches += [(torch.Tensor, name, _on_cpu(getattr(torch.Tensor, name))) for name in TENSOR_FACTORIES]
    with patched(patches):
        yield
