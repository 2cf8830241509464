"""``torchvision.utils``: ``save_image`` is torchvision's ``make_grid`` + ``save_image`` (grid
layout, padding, ``normalize``, ``value_range``, ``scale_each``, rounding ``x*255+0.5``);
``jittor.misc.save_image`` lays the grid out differently.  Both work on numpy arrays."""
from __future__ import annotations

import math

import jittor as jt
import numpy as np
from PIL import Image

__all__ = ["make_grid", "save_image", "make_grid_tensor"]


def _as_array(tensor) -> np.ndarray:
    if isinstance(tensor, (list, tuple)):
        return np.stack([_as_array(t) for t in tensor])
    return np.asarray(tensor.numpy() if hasattr(tensor, "numpy") else tensor, dtype=np.float32)


def make_grid(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False, value_range=None,
              scale_each: bool = False, pad_value: float = 0.0) -> np.ndarray:
    """torchvision's ``make_grid`` as a float32 (C, H, W) numpy array."""
    x = _as_array(tensor).copy()
    if x.ndim == 2:
        x = x[None]
    if x.ndim == 3:
        x = (np.concatenate([x] * 3, 0) if x.shape[0] == 1 else x)[None]
    if x.ndim != 4:
        raise ValueError(f"make_grid: expected a 2-, 3- or 4-d image batch, got shape {x.shape}")
    if x.shape[1] == 1:
        x = np.concatenate([x] * 3, 1)
    if normalize:
        def norm(img, low, high):
            img = np.clip(img, low, high)
            return (img - low) / max(high - low, 1e-5)
        if scale_each:
            x = np.stack([norm(t, *(value_range or (t.min(), t.max()))) for t in x])
        else:
            x = norm(x, *(value_range or (x.min(), x.max())))
    if x.shape[0] == 1:
        return x[0]
    n, c, h, w = x.shape
    xmaps = min(nrow, n)
    ymaps = int(math.ceil(n / xmaps))
    height, width = h + padding, w + padding
    grid = np.full((c, height * ymaps + padding, width * xmaps + padding), pad_value, np.float32)
    for k in range(n):
        y, xx = divmod(k, xmaps)
        grid[:, y * height + padding:y * height + padding + h, xx * width + padding:xx * width + padding + w] = x[k]
    return grid


def make_grid_tensor(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False, value_range=None,
                     scale_each: bool = False, pad_value: float = 0.0):
    """``torchvision.utils.make_grid``: the grid as a float32 (C, H, W) Var (computed on the
    host like torchvision's own image helpers; no gradient flows through it)."""
    return jt.array(make_grid(tensor, nrow, padding, normalize, value_range, scale_each, pad_value))


def save_image(tensor, fp, format=None, **grid_kwargs) -> None:
    """torchvision's ``save_image``: ``make_grid``, then ``x*255+0.5`` clamped to uint8."""
    grid = make_grid(tensor, **grid_kwargs)
    pixels = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    Image.fromarray(pixels).save(fp, format=format)
