"""Tiny generated image folders for the MCCNet training tests (numpy + PIL, no torch, no Jittor).

Images are smooth seeded colour patterns (gradients plus a few discs), so they are cheap,
deterministic and not constant (a constant image has a zero per-channel std).
"""
from pathlib import Path

import numpy as np
from PIL import Image


def make_image(rng, height, width):
    """One seeded RGB uint8 image of ``height`` x ``width``: colour ramps plus random discs."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.empty((height, width, 3), np.float32)
    for c in range(3):
        a, b, phase = rng.uniform(-1, 1, 3)
        img[..., c] = 0.5 + 0.25 * np.sin(a * xx / 4 + b * yy / 5 + phase * 3)
    for _ in range(3):
        cy, cx = rng.uniform(0, height), rng.uniform(0, width)
        r = rng.uniform(height / 8, height / 3)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.uniform(0, 1, 3)
    return Image.fromarray(np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8))


def make_folder(root, count, seed, height=40, width=48):
    """Write ``count`` seeded PNG images into ``root`` (created); returns the paths, sorted."""
    if count < 1:
        raise ValueError(f"make_folder: count must be >= 1, got {count}")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(count):
        p = root / f"img_{i:03d}.png"
        make_image(rng, height, width).save(p)
        paths.append(p)
    return paths
