"""torchvision's ResNet (``resnet18`` ... ``resnet152``) in Jittor, module for module.

Attribute names and registration order are torchvision's (``conv1, bn1, relu, maxpool,
layer1..layer4, avgpool, fc``; blocks ``conv1, bn1, relu, conv2, bn2, downsample``), so
``state_dict()`` keys, ``children()`` and ``modules()`` order match and a torchvision checkpoint
loads by key.
"""
from __future__ import annotations

from typing import List, Optional

import jittor as jt

from ... import nn as snn
from ._weights import build, make_enum, resolve
from .vgg import init_conv_bn_linear

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "conv3x3", "conv1x1", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights",
           "ResNet101_Weights", "ResNet152_Weights"]

def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1):
    """torchvision's 3x3 convolution with padding, no bias."""
    return jt.nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                        bias=False, dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1):
    """torchvision's 1x1 convolution, no bias."""
    return jt.nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(snn.Module):
    """torchvision's ``BasicBlock`` (two 3x3 convs; expansion 1)."""

    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample=None, groups: int = 1,
                 base_width: int = 64, dilation: int = 1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or snn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = jt.nn.ReLU()
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def execute(self, x):
        """conv-bn-relu-conv-bn, plus the (downsampled) input, relu."""
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class Bottleneck(snn.Module):
    """torchvision's ``Bottleneck`` (1x1, 3x3 with the stride, 1x1; expansion 4)."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample=None, groups: int = 1,
                 base_width: int = 64, dilation: int = 1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or snn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = jt.nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def execute(self, x):
        """Three conv-bn stages, plus the (downsampled) input, relu."""
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class ResNet(snn.Module):
    """torchvision's ``ResNet(block, layers, num_classes=1000, zero_init_residual=False, groups=1,
    width_per_group=64, replace_stride_with_dilation=None, norm_layer=None)``."""

    def __init__(self, block, layers: List[int], num_classes: int = 1000, zero_init_residual: bool = False,
                 groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: Optional[List[bool]] = None, norm_layer=None):
        super().__init__()
        self._norm_layer = norm_layer or snn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        replace_stride_with_dilation = replace_stride_with_dilation or [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None "
                             f"or a 3-element tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = jt.nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = jt.nn.ReLU()
        self.maxpool = snn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = snn.AdaptiveAvgPool2d((1, 1))
        self.fc = jt.nn.Linear(512 * block.expansion, num_classes)
        init_conv_bn_linear(self, linear_std=None)  # fc keeps the Linear default, as in torchvision
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    jt.init.constant_(m.bn3.weight, 0.0)
                elif isinstance(m, BasicBlock):
                    jt.init.constant_(m.bn2.weight, 0.0)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1, dilate: bool = False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = snn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                        norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return snn.Sequential(*layers)

    def execute(self, x):
        """stem -> layer1..layer4 -> global average pool -> flatten -> fc."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        return self.fc(x.reshape(x.shape[0], -1))


ResNet18_Weights = make_enum("ResNet18_Weights", "resnet18-f37072fd.pth")
ResNet34_Weights = make_enum("ResNet34_Weights", "resnet34-b627a593.pth")
ResNet50_Weights = make_enum("ResNet50_Weights", "resnet50-0676ba61.pth", "resnet50-11ad3fa6.pth")
ResNet101_Weights = make_enum("ResNet101_Weights", "resnet101-63fe2227.pth", "resnet101-cd907fc2.pth")
ResNet152_Weights = make_enum("ResNet152_Weights", "resnet152-394f9c45.pth", "resnet152-f82ba261.pth")


def _resnet(block, layers, enum_cls, weights, pretrained, progress: bool, kwargs) -> ResNet:
    weights = resolve(weights, pretrained, enum_cls)
    return build(lambda **kw: ResNet(block, layers, **kw), weights, kwargs, progress)


def resnet18(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> ResNet:
    """torchvision's ``resnet18`` (BasicBlock, [2, 2, 2, 2])."""
    return _resnet(BasicBlock, [2, 2, 2, 2], ResNet18_Weights, weights, pretrained, progress, kwargs)


def resnet34(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> ResNet:
    """torchvision's ``resnet34`` (BasicBlock, [3, 4, 6, 3])."""
    return _resnet(BasicBlock, [3, 4, 6, 3], ResNet34_Weights, weights, pretrained, progress, kwargs)


def resnet50(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> ResNet:
    """torchvision's ``resnet50`` (Bottleneck, [3, 4, 6, 3])."""
    return _resnet(Bottleneck, [3, 4, 6, 3], ResNet50_Weights, weights, pretrained, progress, kwargs)


def resnet101(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> ResNet:
    """torchvision's ``resnet101`` (Bottleneck, [3, 4, 23, 3])."""
    return _resnet(Bottleneck, [3, 4, 23, 3], ResNet101_Weights, weights, pretrained, progress, kwargs)


def resnet152(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> ResNet:
    """torchvision's ``resnet152`` (Bottleneck, [3, 8, 36, 3])."""
    return _resnet(Bottleneck, [3, 8, 36, 3], ResNet152_Weights, weights, pretrained, progress, kwargs)
