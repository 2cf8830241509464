"""torch's automatic mixed precision (``torch.amp``, ``torch.cuda.amp``) as torch runs it without
CUDA: ``GradScaler`` disabled (it scales by 1, steps the optimizer, keeps no state) and CUDA
``autocast`` off.

torch itself disables both when CUDA is not available ("GradScaler is enabled, but CUDA is not
available. Disabling."), so on the CPU the converted loop is torch's exactly: every op runs in
float32, ``scaler.scale(loss).backward()`` is ``loss.backward()``, ``scaler.step(opt)`` is
``opt.step()``. Jittor has no per-region autocast (``jt.flags.auto_mixed_precision_level`` is
global), so a port on a GPU also trains in float32: slower than torch's float16 regions, never
less precise. A CPU ``autocast`` that torch would honour (``device_type="cpu"``, bfloat16) runs
in float32 with a warning, since its numbers then differ from torch's.
"""
from __future__ import annotations

import functools
import warnings

__all__ = ["GradScaler", "autocast", "is_autocast_enabled", "CudaGradScaler", "cuda_autocast"]


class GradScaler:
    """``torch.amp.GradScaler``/``torch.cuda.amp.GradScaler``, disabled as torch disables it
    without CUDA: the scale is 1 and the loop runs unchanged."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._init = dict(init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                          growth_interval=growth_interval)

    def scale(self, outputs):
        """The outputs as given (a disabled scaler multiplies by nothing)."""
        return outputs

    def unscale_(self, optimizer) -> None:
        """Nothing to unscale."""

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` (no inf/NaN check: a disabled scaler makes none)."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        """Nothing to update."""

    def get_scale(self) -> float:
        """1.0, as torch's disabled scaler returns."""
        return 1.0

    def get_growth_factor(self) -> float:
        """The growth factor given at construction."""
        return self._init["growth_factor"]

    def get_backoff_factor(self) -> float:
        """The backoff factor given at construction."""
        return self._init["backoff_factor"]

    def get_growth_interval(self) -> int:
        """The growth interval given at construction."""
        return self._init["growth_interval"]

    def is_enabled(self) -> bool:
        """False: torch's scaler without CUDA."""
        return False

    def state_dict(self) -> dict:
        """``{}``, as a disabled torch scaler saves."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Accept a saved scaler's state (from a CUDA run too): a disabled scaler ignores it."""


class autocast:
    """``torch.autocast``/``torch.amp.autocast``/``torch.cuda.amp.autocast`` as a context manager
    or decorator: every op keeps running in float32 (see the module docstring)."""

    def __init__(self, device_type: str = "cuda", dtype=None, enabled: bool = True, cache_enabled=None):
        if enabled and device_type == "cpu":
            warnings.warn("jtport: autocast(device_type='cpu') runs in float32 under Jittor (no per-region "
                          "mixed precision); torch would compute its matmuls/convolutions in bfloat16 here",
                          stacklevel=2)

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return run


class CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler(init_scale, growth_factor, backoff_factor, growth_interval,
    enabled)``: :class:`GradScaler` with torch's positional order for the CUDA alias (no device)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class cuda_autocast(autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``:
    :class:`autocast` with torch's positional order for the CUDA alias."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled=None):
        super().__init__("cuda", dtype, enabled, cache_enabled)


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """False: no region ever runs in reduced precision."""
    return False
