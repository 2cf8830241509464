"""``torch.accelerator``: the device-agnostic queries of torch 2.6+, answered for Jittor.

Jittor drives at most one CUDA device per process, chosen globally by ``jt.flags.use_cuda``; its
analogue of torch's build-time accelerator is ``jt.has_cuda`` (a CUDA toolchain and device found).
"""
from __future__ import annotations

import jittor as jt

from .runtime import Device


def is_available() -> bool:
    """``torch.accelerator.is_available()``: whether Jittor can use a CUDA device."""
    return bool(jt.has_cuda)


def device_count() -> int:
    """``torch.accelerator.device_count()``: 1 with CUDA (one device per Jittor process), else 0."""
    return 1 if jt.has_cuda else 0


def current_accelerator(check_available: bool = False):
    """``torch.accelerator.current_accelerator()``: ``device(type='cuda')`` when Jittor has CUDA,
    else None.  (torch reports its build's accelerator even on a machine without one; Jittor
    knows CUDA only once found, so ``check_available`` changes nothing.)"""
    return Device("cuda") if jt.has_cuda else None


def current_device_index() -> int:
    """``torch.accelerator.current_device_index()``: 0 (Jittor's one device), -1 without CUDA."""
    return 0 if jt.has_cuda else -1


def synchronize(device=None) -> None:
    """``torch.accelerator.synchronize()``: wait for every queued Jittor operation."""
    jt.sync_all(True)
