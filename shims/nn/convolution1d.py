"""1-D convolutions on the torch-exact 2-d ones over a height-1 map: ``conv1d``,
``conv_transpose1d``, ``Conv1d``, ``ConvTranspose1d``.  Sizes are an int or a 1-tuple, and the
layers keep them as 1-tuples, as torch's ``_single`` does (``conv.kernel_size[0]``).
"""
from __future__ import annotations

import math

import jittor as jt

from .conv import conv2d, conv_transpose2d
from .module import Module

__all__ = ["conv_transpose1d", "ConvTranspose1d", "conv1d", "Conv1d"]


def _one(v):
    """The int of a 1-d size given as an int or a 1-tuple."""
    return v[0] if isinstance(v, (tuple, list)) else v


def _single(v) -> tuple:
    """torch's ``_single``: a 1-d size as the 1-tuple a layer keeps."""
    return (_one(v),)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """``F.conv1d`` through the 2-d convolution (:func:`shims.nn.conv2d`: torch's rounding)."""
    one = _one
    if isinstance(padding, str):
        raise NotImplementedError(f"conv1d(padding={padding!r}): pad explicitly")
    x = input.unsqueeze(0) if input.ndim == 2 else input  # (C, L): one sequence, as in torch
    y = conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, one(stride)), (0, one(padding)),
               (1, one(dilation)), groups).squeeze(2)
    return y.squeeze(0) if input.ndim == 2 else y


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1):
    """``F.conv_transpose1d`` via the torch-exact 2-d transposed convolution on a height-1 map."""
    one = _one
    y = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one(stride)), (0, one(padding)),
                         (0, one(output_padding)), groups, (1, one(dilation)))
    return y.squeeze(-2)


class ConvTranspose1d(Module):
    """``torch.nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1)``: ``weight`` (in, out/groups, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, _single(kernel_size)
        self.stride, self.padding, self.output_padding = _single(stride), _single(padding), _single(output_padding)
        self.groups, self.dilation = groups, _single(dilation)
        k = 1.0 / math.sqrt((out_channels // groups) * self.kernel_size[0])
        self.weight = jt.init.uniform((in_channels, out_channels // groups, self.kernel_size[0]), "float32", -k, k)
        self.bias = jt.init.uniform((out_channels,), "float32", -k, k) if bias else None

    def execute(self, input):
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                self.groups, self.dilation)


class Conv1d(Module):
    """``torch.nn.Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True)``: ``weight`` (out, in/groups, k), torch's initialisation bounds; forward
    through :func:`conv1d` (torch's rounding).  Jittor's ``Conv1d`` took no 1-tuple sizes, which
    torch's takes and keeps."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        if isinstance(padding, str):
            raise NotImplementedError(f"Conv1d(padding={padding!r}): pad explicitly")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, _single(kernel_size)
        self.stride, self.padding, self.dilation = _single(stride), _single(padding), _single(dilation)
        self.groups, self.padding_mode = groups, padding_mode
        k = 1.0 / math.sqrt((in_channels // groups) * self.kernel_size[0])
        self.weight = jt.init.uniform((out_channels, in_channels // groups, self.kernel_size[0]), "float32", -k, k)
        self.bias = jt.init.uniform((out_channels,), "float32", -k, k) if bias else None

    def execute(self, input):
        return conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
