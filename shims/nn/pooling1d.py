"""1-D pooling (functions and layers: max, average, adaptive): average pools on the torch-exact 2-d
pools over a height-1 map, max pools from :mod:`.max_pool` (torch's tie rule), and power-average
pooling (``lp_pool1d``/``lp_pool2d``, ``LPPool1d``/``LPPool2d``).
"""
from __future__ import annotations

from .max_pool import adaptive_max_pool1d, max_pool1d
from .module import Module
from .pooling import adaptive_avg_pool2d, avg_pool2d

__all__ = [  # max_pool1d, adaptive_max_pool1d: shims.nn.max_pool's
    "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "lp_pool1d",
    "lp_pool2d", "LPPool1d", "LPPool2d", "avg_pool1d", "adaptive_avg_pool1d"
]


def _first(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """``F.avg_pool1d`` via ``shims.nn.avg_pool2d`` on a height-1 map."""
    s = None if stride is None else (1, _first(stride))
    y = avg_pool2d(input.unsqueeze(-2), (1, _first(kernel_size)), s, (0, _first(padding)), ceil_mode,
                   count_include_pad)
    return y.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """``F.adaptive_avg_pool1d`` via ``shims.nn.adaptive_avg_pool2d``."""
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _first(output_size))).squeeze(-2)


class MaxPool1d(Module):
    """``torch.nn.MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def execute(self, input):
        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool1d(Module):
    """``torch.nn.AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def execute(self, input):
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveAvgPool1d(Module):
    """``torch.nn.AdaptiveAvgPool1d(output_size)``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def execute(self, input):
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(Module):
    """``torch.nn.AdaptiveMaxPool1d(output_size, return_indices=False)``."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def execute(self, input):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


def _lp(pooled_avg, kernel_elems: int, norm_type: float):
    """torch's ``(sign(avg) * relu(|avg|) * kernel_elems) ** (1/p)`` (= ``(avg * k) ** (1/p)``)."""
    return (pooled_avg * kernel_elems) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """``F.lp_pool1d``: ``(sum over the window of x^p)^(1/p)``."""
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    avg = avg_pool1d(input ** norm_type, k, stride, 0, ceil_mode)
    return _lp(avg, k, norm_type)


def lp_pool2d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """``F.lp_pool2d``."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    avg = avg_pool2d(input ** norm_type, (kh, kw), stride, 0, ceil_mode)
    return _lp(avg, kh * kw, norm_type)


class LPPool1d(Module):
    """``torch.nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)``."""

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def execute(self, input):
        return lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """``torch.nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)``."""

    def execute(self, input):
        return lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)
