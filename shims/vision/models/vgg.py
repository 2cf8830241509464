"""torchvision's VGG (``vgg11`` ... ``vgg19_bn``) in Jittor, module for module.

``features`` is one ``Sequential`` of conv / (batch norm) / ReLU / max-pool layers in
torchvision's order, so ``state_dict()`` keys (``features.0.weight``, ``classifier.6.bias``)
and ``list(vgg.features.children())[:31]`` are torchvision's (the MCCNet write-up's trap:
Jittor's own ``jittor.models.vgg19`` groups its children differently).
"""
from __future__ import annotations

from typing import List, Optional, Union

import jittor as jt

from ... import nn as snn
from ._weights import build, make_enum, resolve

__all__ = ["VGG", "make_layers", "cfgs", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn",
           "vgg19", "vgg19_bn", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights",
           "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights"]

def init_conv_bn_linear(module, linear_std: Optional[float] = 0.01) -> None:
    """torchvision's initialisation of VGG (and of ResNet's convs and norms): convolutions
    ``kaiming_normal_(fan_out, relu)`` with zero bias, batch norms weight 1 / bias 0, linears
    ``normal_(0, linear_std)`` with zero bias (``linear_std=None`` keeps the layer default)."""
    for m in module.modules():
        if isinstance(m, jt.nn.Conv2d):
            jt.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                jt.init.constant_(m.bias, 0.0)
        elif isinstance(m, snn.BatchNorm2d):
            jt.init.constant_(m.weight, 1.0)
            jt.init.constant_(m.bias, 0.0)
        elif isinstance(m, jt.nn.Linear) and linear_std is not None:
            jt.init.gauss_(m.weight, 0.0, linear_std)
            jt.init.constant_(m.bias, 0.0)


class VGG(snn.Module):
    """torchvision's ``VGG(features, num_classes=1000, init_weights=True, dropout=0.5)``."""

    def __init__(self, features, num_classes: int = 1000, init_weights: bool = True, dropout: float = 0.5):
        super().__init__()
        self.features = features
        self.avgpool = snn.AdaptiveAvgPool2d((7, 7))
        self.classifier = snn.Sequential(
            jt.nn.Linear(512 * 7 * 7, 4096), jt.nn.ReLU(), snn.Dropout(p=dropout),
            jt.nn.Linear(4096, 4096), jt.nn.ReLU(), snn.Dropout(p=dropout),
            jt.nn.Linear(4096, num_classes),
        )
        if init_weights:
            init_conv_bn_linear(self)

    def execute(self, x):
        """features -> 7x7 average pool -> flatten -> classifier."""
        x = self.avgpool(self.features(x))
        return self.classifier(x.reshape(x.shape[0], -1))


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def make_layers(cfg: List[Union[str, int]], batch_norm: bool = False):
    """torchvision's ``make_layers``: one flat ``Sequential`` for a config list."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(snn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv = jt.nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
        layers += [conv, snn.BatchNorm2d(v), jt.nn.ReLU()] if batch_norm else [conv, jt.nn.ReLU()]
        in_channels = v
    return snn.Sequential(*layers)


VGG11_Weights = make_enum("VGG11_Weights", "vgg11-8a719046.pth")
VGG11_BN_Weights = make_enum("VGG11_BN_Weights", "vgg11_bn-6002323d.pth")
VGG13_Weights = make_enum("VGG13_Weights", "vgg13-19584684.pth")
VGG13_BN_Weights = make_enum("VGG13_BN_Weights", "vgg13_bn-abd245e5.pth")
VGG16_Weights = make_enum("VGG16_Weights", "vgg16-397923af.pth",
                          # torchvision: features only (classifier NaN), inputs scaled to [0, 255]
                          IMAGENET1K_FEATURES="vgg16_features-amdegroot-88682ab5.pth")
VGG16_BN_Weights = make_enum("VGG16_BN_Weights", "vgg16_bn-6c64b313.pth")
VGG19_Weights = make_enum("VGG19_Weights", "vgg19-dcbb9e9d.pth")
VGG19_BN_Weights = make_enum("VGG19_BN_Weights", "vgg19_bn-c79401a0.pth")


def _vgg(cfg: str, batch_norm: bool, enum_cls, weights, pretrained, progress: bool, kwargs) -> VGG:
    weights = resolve(weights, pretrained, enum_cls)
    if weights is not None:
        kwargs["init_weights"] = False
    return build(lambda **kw: VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kw), weights, kwargs, progress)


def vgg11(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg11`` (config "A")."""
    return _vgg("A", False, VGG11_Weights, weights, pretrained, progress, kwargs)


def vgg11_bn(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg11_bn`` (config "A", batch norm)."""
    return _vgg("A", True, VGG11_BN_Weights, weights, pretrained, progress, kwargs)


def vgg13(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg13`` (config "B")."""
    return _vgg("B", False, VGG13_Weights, weights, pretrained, progress, kwargs)


def vgg13_bn(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg13_bn`` (config "B", batch norm)."""
    return _vgg("B", True, VGG13_BN_Weights, weights, pretrained, progress, kwargs)


def vgg16(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg16`` (config "D")."""
    return _vgg("D", False, VGG16_Weights, weights, pretrained, progress, kwargs)


def vgg16_bn(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg16_bn`` (config "D", batch norm)."""
    return _vgg("D", True, VGG16_BN_Weights, weights, pretrained, progress, kwargs)


def vgg19(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg19`` (config "E")."""
    return _vgg("E", False, VGG19_Weights, weights, pretrained, progress, kwargs)


def vgg19_bn(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> VGG:
    """torchvision's ``vgg19_bn`` (config "E", batch norm)."""
    return _vgg("E", True, VGG19_BN_Weights, weights, pretrained, progress, kwargs)
