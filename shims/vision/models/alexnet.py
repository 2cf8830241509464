"""torchvision's AlexNet and SqueezeNet (1.0, 1.1) in Jittor, module for module (torchvision's
attribute names, ``Sequential`` indices and initialisation)."""
from __future__ import annotations

from typing import Optional

import jittor as jt

from ... import nn as snn
from ._weights import build, make_enum, resolve

__all__ = ["AlexNet", "alexnet", "AlexNet_Weights", "SqueezeNet", "Fire", "squeezenet1_0", "squeezenet1_1",
           "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights"]

class AlexNet(snn.Module):
    """torchvision's ``AlexNet(num_classes=1000, dropout=0.5)``; layers keep their default
    initialisation, as in torchvision."""

    def __init__(self, num_classes: int = 1000, dropout: float = 0.5):
        super().__init__()
        self.features = snn.Sequential(
            jt.nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), jt.nn.ReLU(),
            snn.MaxPool2d(kernel_size=3, stride=2),
            jt.nn.Conv2d(64, 192, kernel_size=5, padding=2), jt.nn.ReLU(),
            snn.MaxPool2d(kernel_size=3, stride=2),
            jt.nn.Conv2d(192, 384, kernel_size=3, padding=1), jt.nn.ReLU(),
            jt.nn.Conv2d(384, 256, kernel_size=3, padding=1), jt.nn.ReLU(),
            jt.nn.Conv2d(256, 256, kernel_size=3, padding=1), jt.nn.ReLU(),
            snn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = snn.AdaptiveAvgPool2d((6, 6))
        self.classifier = snn.Sequential(
            snn.Dropout(p=dropout), jt.nn.Linear(256 * 6 * 6, 4096), jt.nn.ReLU(),
            snn.Dropout(p=dropout), jt.nn.Linear(4096, 4096), jt.nn.ReLU(),
            jt.nn.Linear(4096, num_classes),
        )

    def execute(self, x):
        """features -> 6x6 average pool -> flatten -> classifier."""
        x = self.avgpool(self.features(x))
        return self.classifier(x.reshape(x.shape[0], -1))


class Fire(snn.Module):
    """torchvision's SqueezeNet ``Fire`` module: squeeze 1x1, then 1x1 and 3x3 expands concatenated."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int, expand3x3_planes: int):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = jt.nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = jt.nn.ReLU()
        self.expand1x1 = jt.nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = jt.nn.ReLU()
        self.expand3x3 = jt.nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = jt.nn.ReLU()

    def execute(self, x):
        """squeeze, then both expands concatenated on channels."""
        x = self.squeeze_activation(self.squeeze(x))
        return jt.concat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


_SQUEEZE = {
    "1_0": ((3, 96, 7), [(96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), "M", (256, 32, 128, 128),
                         (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), "M", (512, 64, 256, 256)]),
    "1_1": ((3, 64, 3), [(64, 16, 64, 64), (128, 16, 64, 64), "M", (128, 32, 128, 128), (256, 32, 128, 128), "M",
                         (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]),
}


class SqueezeNet(snn.Module):
    """torchvision's ``SqueezeNet(version="1_0", num_classes=1000, dropout=0.5)``: convs
    ``kaiming_uniform_`` (torch's defaults: a=0, fan_in, leaky_relu gain), the final conv
    ``normal_(0, 0.01)``, biases zero."""

    def __init__(self, version: str = "1_0", num_classes: int = 1000, dropout: float = 0.5):
        super().__init__()
        if version not in _SQUEEZE:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        self.num_classes = num_classes
        (cin, cout, k), fires = _SQUEEZE[version]
        layers = [jt.nn.Conv2d(cin, cout, kernel_size=k, stride=2), jt.nn.ReLU(),
                  snn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)]
        for f in fires:
            layers.append(snn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True) if f == "M" else Fire(*f))
        self.features = snn.Sequential(*layers)
        final_conv = jt.nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = snn.Sequential(snn.Dropout(p=dropout), final_conv, jt.nn.ReLU(),
                                         snn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, jt.nn.Conv2d):
                if m is final_conv:
                    jt.init.gauss_(m.weight, 0.0, 0.01)
                else:
                    jt.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    jt.init.constant_(m.bias, 0.0)

    def execute(self, x):
        """features -> classifier (dropout, 1x1 conv, relu, global pool) -> flatten."""
        x = self.classifier(self.features(x))
        return x.reshape(x.shape[0], -1)


AlexNet_Weights = make_enum("AlexNet_Weights", "alexnet-owt-7be5be79.pth")
SqueezeNet1_0_Weights = make_enum("SqueezeNet1_0_Weights", "squeezenet1_0-b66bff10.pth")
SqueezeNet1_1_Weights = make_enum("SqueezeNet1_1_Weights", "squeezenet1_1-b8a52dc0.pth")


def alexnet(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> AlexNet:
    """torchvision's ``alexnet``."""
    return build(AlexNet, resolve(weights, pretrained, AlexNet_Weights), kwargs, progress)


def squeezenet1_0(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None,
                  **kwargs) -> SqueezeNet:
    """torchvision's ``squeezenet1_0``."""
    return build(lambda **kw: SqueezeNet("1_0", **kw), resolve(weights, pretrained, SqueezeNet1_0_Weights),
                 kwargs, progress)


def squeezenet1_1(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None,
                  **kwargs) -> SqueezeNet:
    """torchvision's ``squeezenet1_1``."""
    return build(lambda **kw: SqueezeNet("1_1", **kw), resolve(weights, pretrained, SqueezeNet1_1_Weights),
                 kwargs, progress)
