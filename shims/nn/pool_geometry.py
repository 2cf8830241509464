"""torch's pooling geometry, shared by the average and max pools: output sizes and adaptive bins."""
from __future__ import annotations

__all__ = ["pool_out_size", "adaptive_bins"]


def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's ``pooling_output_shape``, including "the last window must start inside the input
    or the left padding" under ``ceil_mode``."""
    num = size + 2 * p - d * (k - 1) - 1
    out = (num + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def adaptive_bins(size: int, out: int):
    """torch's adaptive bins: ``[floor(i*size/out), ceil((i+1)*size/out))`` for each output i."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]
