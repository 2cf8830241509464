"""A script written for one GPU, run on a machine without CUDA (the torch side of parity).

Research code places things on the GPU unconditionally: ``.cuda()``, ``.to(torch.device('cuda'))``,
``torch.zeros(n, device='cuda')``, ``torch.cuda.set_device(0)``, and NeuS's
``torch.set_default_tensor_type('torch.cuda.FloatTensor')``, after which every factory call makes
a CUDA tensor.  Its Jittor port places nothing (one global ``jt.flags.use_cuda``), so on a CPU
machine the port runs; :func:`cuda_as_cpu` lets the torch reference run there too, on the CPU,
with the same numbers as far as the CPU kernels go.
"""
from __future__ import annotations

import contextlib
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

#: set on a Python wrapper that replaced a ``torch.Tensor`` method (the tracer's shared draws): the
#: method it wraps.  torch hands a mode the class's *current* attribute, so without it a method
#: called through its wrapper would run the wrapper twice (``t.uniform_()`` counted as two draws).
WRAPS = "_jtport_wraps"
#: ``torch.cuda.<Name>Tensor`` -> ``torch.<Name>Tensor`` (the legacy tensor types)
_TYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")


def _is_cuda(device: Any) -> bool:
    """Whether ``device`` (a ``torch.device``, a string such as ``'cuda:1'``, or an ordinal) names a GPU."""
    if isinstance(device, torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device.split(":")[0] == "cuda"
    return isinstance(device, int) and not isinstance(device, bool)


def _cpu(device: Any) -> Any:
    """``device`` with a GPU replaced by the CPU."""
    return torch.device("cpu") if _is_cuda(device) else device


def cpu_tensor_type(t: Any) -> Any:
    """The CPU counterpart of a legacy tensor type (``'torch.cuda.FloatTensor'`` or the class
    ``torch.cuda.FloatTensor`` -> ``'torch.FloatTensor'``); any other ``t`` unchanged."""
    name = t if isinstance(t, str) else f"{getattr(t, '__module__', '')}.{getattr(t, '__name__', '')}"
    for kind in _TYPES:
        if name == f"torch.cuda.{kind}Tensor":
            return f"torch.{kind}Tensor"
    return t


class CudaAsCpuMode(TorchFunctionMode):
    """Every torch call with a GPU ``device=`` runs with the CPU instead, and ``Tensor.to``
    (what ``Module.to`` calls for each weight) with a GPU device positional moves nothing."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        if func is torch.Tensor.to:
            args = args[:1] + tuple(_cpu(a) for a in args[1:])
        return getattr(func, WRAPS, func)(*args, **kwargs)  # a wrapper reaches here from inside itself


class _CpuStream:
    """A CUDA stream on a machine without CUDA: every operation already ran in order."""

    def __init__(self, *args, **kwargs):
        pass

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def synchronize(self) -> None:
        """Nothing to wait for."""


@contextlib.contextmanager
def cuda_as_cpu():
    """Within the block, on a machine without CUDA, code written for one GPU runs on the CPU:
    ``Tensor.cuda()``/``Module.cuda()`` return their receiver, a GPU ``device=`` or ``.to(device)``
    means the CPU (:class:`CudaAsCpuMode`), ``torch.cuda.set_device``/``synchronize`` do nothing,
    ``torch.set_default_tensor_type`` of a CUDA type sets its CPU type and ``set_default_device``
    of a GPU the CPU, and a CUDA stream is a stand-in whose ``torch.cuda.stream(s)`` block runs on
    the CPU (MCCNet's ``.cuda()`` in ``forward``, HiSD's prefetching ``data_prefetcher``, NeuS's
    ``set_default_tensor_type('torch.cuda.FloatTensor')``).  With CUDA, nothing changes."""
    if torch.cuda.is_available():
        yield
        return
    set_type, set_device = torch.set_default_tensor_type, torch.set_default_device
    patches = [(torch.Tensor, "cuda", lambda self, *a, **k: self),
               (torch.nn.Module, "cuda", lambda self, *a, **k: self),
               (torch.Tensor, "record_stream", lambda self, *a, **k: None),
               (torch.cuda, "synchronize", lambda *a, **k: None),
               (torch.cuda, "set_device", lambda *a, **k: None),
               (torch, "set_default_tensor_type", lambda t: set_type(cpu_tensor_type(t))),
               (torch, "set_default_device", lambda d: set_device(_cpu(d))),
               (torch.cuda, "Stream", _CpuStream),
               (torch.cuda, "current_stream", lambda *a, **k: _CpuStream()),
               (torch.cuda, "stream", lambda *a, **k: contextlib.nullcontext())]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, fn in patches:
        setattr(owner, name, fn)
    try:
        with CudaAsCpuMode():
            yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
