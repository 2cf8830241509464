"""Layers that rearrange elements: ``Unflatten``, ``PixelUnshuffle``, ``ChannelShuffle``
(and ``channel_shuffle``), ``Unfold``/``Fold``.
"""
from __future__ import annotations

import jittor as jt

from ..ops import functional as F
from ..ops.shape import unflatten
from .module import Module

__all__ = ["Unflatten", "PixelUnshuffle", "Fold", "Unfold", "channel_shuffle", "ChannelShuffle"]


class Unflatten(Module):
    """``torch.nn.Unflatten(dim, unflattened_size)``."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def execute(self, input):
        return unflatten(input, self.dim, self.unflattened_size)


class PixelUnshuffle(Module):
    """``torch.nn.PixelUnshuffle(downscale_factor)``."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def execute(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)


class Unfold(Module):
    """``torch.nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)``."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def execute(self, input):
        return jt.nn.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """``torch.nn.Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)``."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def execute(self, input):
        return jt.nn.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


def channel_shuffle(input, groups: int):
    """``F.channel_shuffle``: (N, g*c, ...) -> channels interleaved across the ``g`` groups."""
    n, c = int(input.shape[0]), int(input.shape[1])
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


class ChannelShuffle(Module):
    """``torch.nn.ChannelShuffle(groups)``."""

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def execute(self, input):
        return channel_shuffle(input, self.groups)
