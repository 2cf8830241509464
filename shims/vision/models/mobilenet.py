"""torchvision's MobileNetV2 in Jittor, module for module (``Conv2dNormActivation`` is a
``Sequential`` of conv, batch norm, ReLU6 as in ``torchvision.ops.misc``, so keys are
``features.0.0.weight``, ``features.1.conv.0.0.weight``, ...)."""
from __future__ import annotations

from typing import List, Optional

import jittor as jt

from ... import nn as snn
from ._weights import build, make_enum, resolve

__all__ = ["MobileNetV2", "InvertedResidual", "Conv2dNormActivation", "mobilenet_v2", "MobileNet_V2_Weights"]

def _make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    """torchvision's channel rounding: to a multiple of ``divisor``, never down by more than 10%."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


class Conv2dNormActivation(snn.Sequential):
    """torchvision's ``Conv2dNormActivation``: conv (padding ``(k-1)//2*dilation``, bias only
    without a norm), norm, activation."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 1,
                 padding: Optional[int] = None, groups: int = 1, norm_layer=snn.BatchNorm2d,
                 activation_layer=jt.nn.ReLU, dilation: int = 1, inplace: Optional[bool] = True,
                 bias: Optional[bool] = None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [jt.nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                               groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
        self.out_channels = out_channels


class InvertedResidual(snn.Module):
    """torchvision's MobileNetV2 block: optional 1x1 expand, 3x3 depthwise, 1x1 linear project;
    residual when the stride is 1 and the channels agree."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int, norm_layer=None):
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = norm_layer or snn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=jt.nn.ReLU6))
        layers += [Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                        norm_layer=norm_layer, activation_layer=jt.nn.ReLU6),
                   jt.nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), norm_layer(oup)]
        self.conv = snn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def execute(self, x):
        """``conv(x)``, plus ``x`` on the residual path."""
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
            [6, 320, 1, 1]]


class MobileNetV2(snn.Module):
    """torchvision's ``MobileNetV2(num_classes=1000, width_mult=1.0, inverted_residual_setting=None,
    round_nearest=8, block=None, norm_layer=None, dropout=0.2)``, with its initialisation."""

    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0,
                 inverted_residual_setting: Optional[List[List[int]]] = None, round_nearest: int = 8,
                 block=None, norm_layer=None, dropout: float = 0.2):
        super().__init__()
        block = block or InvertedResidual
        norm_layer = norm_layer or snn.BatchNorm2d
        setting = inverted_residual_setting or _SETTING
        if len(setting) == 0 or len(setting[0]) != 4:
            raise ValueError(f"inverted_residual_setting should be non-empty or a 4-element list, got {setting}")
        input_channel = _make_divisible(32 * width_mult, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                          activation_layer=jt.nn.ReLU6)]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                      norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=jt.nn.ReLU6))
        self.features = snn.Sequential(*features)
        self.classifier = snn.Sequential(snn.Dropout(p=dropout), jt.nn.Linear(self.last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, jt.nn.Conv2d):
                jt.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    jt.init.constant_(m.bias, 0.0)
            elif isinstance(m, snn.BatchNorm2d):
                jt.init.constant_(m.weight, 1.0)
                jt.init.constant_(m.bias, 0.0)
            elif isinstance(m, jt.nn.Linear):
                jt.init.gauss_(m.weight, 0.0, 0.01)
                jt.init.constant_(m.bias, 0.0)

    def execute(self, x):
        """features -> global average pool -> flatten -> classifier."""
        x = self.features(x).mean(dims=(2, 3))
        return self.classifier(x)


MobileNet_V2_Weights = make_enum("MobileNet_V2_Weights", "mobilenet_v2-b0353104.pth",
                                 "mobilenet_v2-7ebf99e0.pth")


def mobilenet_v2(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None,
                 **kwargs) -> MobileNetV2:
    """torchvision's ``mobilenet_v2``."""
    return build(MobileNetV2, resolve(weights, pretrained, MobileNet_V2_Weights), kwargs, progress)
