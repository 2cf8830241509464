"""``torch.nn.functional.embedding`` with torch's arguments, and the attributes torch's
``nn.Embedding`` has that Jittor's lacks (``max_norm``, ``norm_type``, ``scale_grad_by_freq``,
``sparse``): code that passes a layer's settings on to the functional form (awd-lstm-lm's
embedded dropout: ``F.embedding(words, w, embed.padding_idx, embed.max_norm, ...)``) runs.
"""
from __future__ import annotations

import jittor as jt
import numpy as np

from ..unported import UnportedError

__all__ = ["embedding"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """``torch.nn.functional.embedding``: rows of ``weight`` at ``input``. ``padding_idx`` (negative
    counts from the end, as torch's) gets no gradient; ``sparse`` only changes how torch stores the
    gradient. ``max_norm`` (rows renormalised in place) and ``scale_grad_by_freq`` raise."""
    if max_norm is not None:
        raise UnportedError("torch.nn.functional.embedding: max_norm= renormalises rows in place; no Jittor port")
    if scale_grad_by_freq:
        raise UnportedError("torch.nn.functional.embedding: scale_grad_by_freq=True has no Jittor port")
    if padding_idx is not None:
        rows = int(weight.shape[0])
        row = padding_idx + rows if padding_idx < 0 else padding_idx
        keep = np.ones((rows, 1), dtype=str(weight.dtype))
        keep[row] = 0
        keep = jt.array(keep)
        # the same values, with the padding row's gradient cut (x*1 + x*0 is exact)
        weight = weight * keep + weight.detach() * (1 - keep)
    return jt.nn.embedding(input, weight)


def _install_layer_attributes() -> None:
    # torch's defaults; Jittor's Embedding never renormalises or scales, so these are its truth
    for name, value in (("max_norm", None), ("norm_type", 2.0), ("scale_grad_by_freq", False), ("sparse", False)):
        if not hasattr(jt.nn.Embedding, name):
            setattr(jt.nn.Embedding, name, value)


_install_layer_attributes()
