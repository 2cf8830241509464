"""What converted code reads of torch's runtime: ``torch.__version__``, ``torch.finfo``,
``torch.get_default_dtype``, ``torch._assert`` and the cuDNN switch."""
from __future__ import annotations

import jittor as jt
import numpy as np

# What converted code reads as ``torch.__version__``: Jittor's version, so code that branches on
# a torch version (StyleGAN2-ADA's conv2d_gradfix enables its custom op only on torch 1.7-1.9)
# takes its generic fallback.
torch_version = jt.__version__

# ``torch.backends.cudnn.enabled``: torch's cuDNN is never used under Jittor, so code gated on it
# (StyleGAN2-ADA's conv2d_gradfix custom op) takes its generic path.
cudnn_enabled = False


def finfo(dtype=None) -> np.finfo:
    """``torch.finfo(dtype)``: machine limits of a floating Jittor dtype (``max``, ``min``,
    ``eps``, ``tiny``, ``bits``, ``resolution``); float32 when no dtype is given, as in torch."""
    if dtype is None:
        name = "float32"
    else:  # a Var's dtype prints as its name; jt.float32 itself is a function named after it
        name = getattr(dtype, "__name__", None) if callable(dtype) else str(dtype)
    try:
        return np.finfo(np.dtype(name))
    except (TypeError, ValueError) as e:
        raise TypeError(f"finfo(): {dtype!r} is not a floating dtype") from e


def get_default_dtype():
    """``torch.get_default_dtype()``: Jittor's default float dtype, float32 (fixed per process)."""
    return jt.float32


def symbolic_assert(condition, message: str = "") -> None:
    """``torch._assert`` (``torch.Assert`` before torch 1.8): raise ``AssertionError(message)``
    when ``condition`` (a bool or a one-element Var) is false."""
    if not bool(condition.item() if isinstance(condition, jt.Var) else condition):
        raise AssertionError(message)
