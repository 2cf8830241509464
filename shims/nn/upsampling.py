"""Upsampling: ``UpsamplingBilinear2d`` (torch's ``align_corners=True``), ``upsample_bilinear``,
``upsample_nearest``.
"""
from __future__ import annotations



from .functional import interpolate
from .module import Module

__all__ = ["UpsamplingBilinear2d", "upsample_bilinear", "upsample_nearest"]


class UpsamplingBilinear2d(Module):
    """``torch.nn.UpsamplingBilinear2d(size=None, scale_factor=None)``: bilinear with
    ``align_corners=True`` (Jittor's uses False)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def execute(self, input):
        return interpolate(input, self.size, self.scale_factor, mode="bilinear", align_corners=True)


def upsample_bilinear(input, size=None, scale_factor=None):
    """``F.upsample_bilinear`` (deprecated): bilinear with ``align_corners=True``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def upsample_nearest(input, size=None, scale_factor=None):
    """``F.upsample_nearest`` (deprecated): nearest."""
    return interpolate(input, size, scale_factor, mode="nearest")
