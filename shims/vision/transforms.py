"""torchvision pieces with torchvision's semantics on PIL images and Jittor Vars.

``Resize`` keeps torchvision's meaning of an int size (match the *smaller* edge, keep the
aspect ratio); ``jittor.transform.Resize`` turns an int into a square.  They need no torch.
"""
from __future__ import annotations


from PIL import Image
from jittor.transform import function_pil

__all__ = ["Resize"]


class Resize:
    """``torchvision.transforms.Resize`` on PIL images: a (h, w) size is exact, an int size
    matches the smaller edge; ``interpolation`` is a PIL resampling filter."""

    def __init__(self, size, interpolation=Image.BILINEAR, max_size=None, antialias=True):
        if max_size is not None:
            raise NotImplementedError("Resize(max_size=...) is not supported by shims.vision.Resize")
        if not (isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) in (1, 2))):
            raise TypeError(f"Resize: size must be an int or a (h, w) sequence, got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def __call__(self, img):
        if not isinstance(img, Image.Image):
            raise TypeError(f"Resize expects a PIL image, got {type(img).__name__}")
        return function_pil.resize(img, self.size, self.interpolation)
