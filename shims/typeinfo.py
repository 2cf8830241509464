"""``torch.finfo`` and ``torch.__version__`` for converted code."""
from __future__ import annotations

import jittor as jt
import numpy as np

# What converted code reads as ``torch.__version__``: Jittor's version, so code that branches on
# a torch version (StyleGAN2-ADA's conv2d_gradfix enables its custom op only on torch 1.7-1.9)
# takes its generic fallback.
torch_version = jt.__version__


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
