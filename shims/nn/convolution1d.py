"""1-D convolutions on the torch-exact 2-d ones over a height-1 map: ``conv1d``,
``conv_transpose1d``, ``ConvTranspose1d``.
"""
from __future__ import annotations

import math

import jittor as jt

from .conv import conv2d, conv_transpose2d
from .module import Module

__all__ = ["conv_transpose1d", "ConvTranspose1d", "conv1d"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """``F.conv1d`` through the 2-d convolution (:func:`shims.nn.conv2d`: torch's rounding)."""
    one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    if isinstance(padding, str):
        raise NotImplementedError(f"conv1d(padding={padding!r}): pad explicitly")
    x = input.unsqueeze(0) if input.ndim == 2 else input  # (C, L): one sequence, as in torch
    y = conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, one(stride)), (0, one(padding)),
               (1, one(dilation)), groups).squeeze(2)
    return y.squeeze(0) if input.ndim == 2 else y


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1):
    """``F.conv_transpose1d`` via the torch-exact 2-d transposed convolution on a height-1 map."""
    one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
    y = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one(stride)), (0, one(padding)),
                         (0, one(output_padding)), groups, (1, one(dilation)))
    return y.squeeze(-2)


class ConvTranspose1d(Module):
    """``torch.nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1)``: ``weight`` (in, out/groups, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, one(kernel_size)
        self.stride, self.padding, self.output_padding = one(stride), one(padding), one(output_padding)
        self.groups, self.dilation = groups, one(dilation)
        k = 1.0 / math.sqrt((out_channels // groups) * self.kernel_size)
        self.weight = jt.init.uniform((in_channels, out_channels // groups, self.kernel_size), "float32", -k, k)
        self.bias = jt.init.uniform((out_channels,), "float32", -k, k) if bias else None

    def execute(self, input):
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                self.groups, self.dilation)
