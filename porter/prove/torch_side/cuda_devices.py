"""Explicit CUDA devices on a machine without CUDA (torch side; torch only).

A script written for one GPU often names its device instead of calling ``.cuda()``:
``device = torch.device('cuda', rank)``, then ``module.to(device)``, ``torch.randn(...,
device=device)``, ``torch.from_numpy(a).pin_memory().to(device)``, and times its phases with
``torch.cuda.Event``. :func:`cuda_devices_as_cpu` runs such a script's torch reference on the
CPU, as its Jittor port runs (Jittor places every Var by one global flag): a CUDA device passed
to a torch factory function or to ``Tensor.to`` becomes the CPU, pinning memory returns the
tensor, and the CUDA events and peak-memory statistics are stand-ins.
"""
from __future__ import annotations

import contextlib
import functools
import time
from typing import Any, Iterator

import torch

_CPU = torch.device("cpu")


def _is_cuda(value: Any) -> bool:
    """Whether ``value`` names a CUDA device (``torch.device('cuda', 0)``, ``'cuda'``, ``'cuda:1'``)."""
    if isinstance(value, torch.device):
        return value.type == "cuda"
    return isinstance(value, str) and value.split(":")[0] == "cuda"


#: torch's functions that take ``device=``: a CUDA device there becomes the CPU
FACTORIES = ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
             "logspace", "eye", "tensor", "as_tensor", "empty_like", "zeros_like", "ones_like", "full_like",
             "rand_like", "randn_like", "randint_like", "empty_strided", "scalar_tensor")


def _on_cpu(fn):
    """``fn`` with a CUDA ``device=`` read as the CPU."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _is_cuda(kwargs.get("device")):
            kwargs["device"] = _CPU
        return fn(*args, **kwargs)
    return call


def _to_cpu(fn):
    """``Tensor.to`` with a CUDA device (positional or ``device=``) read as the CPU; ``Module.to``
    moves its tensors with it."""
    @functools.wraps(fn)
    def to(self, *args, **kwargs):
        if _is_cuda(kwargs.get("device")):
            kwargs["device"] = _CPU
        return fn(self, *(_CPU if _is_cuda(a) else a for a in args), **kwargs)
    return to


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
def patched(patches) -> Iterator[None]:
    """Within the block each ``(owner, name, value)`` of ``patches`` is set; restored after."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


@contextlib.contextmanager
def cuda_devices_as_cpu() -> Iterator[None]:
    """Within the block (only on a machine without CUDA) explicit CUDA devices mean the CPU."""
    if torch.cuda.is_available():
        yield
        return
    patches = [(torch.Tensor, "pin_memory", lambda self, *a, **k: self), (torch.cuda, "Event", CpuEvent),
               (torch.cuda, "reset_peak_memory_stats", lambda *a, **k: None),
               (torch.cuda, "max_memory_allocated", lambda *a, **k: 0)]
    patches += [(torch, name, _on_cpu(getattr(torch, name))) for name in FACTORIES if hasattr(torch, name)]
    patches.append((torch.Tensor, "to", _to_cpu(torch.Tensor.to)))
    with patched(patches):
        yield
