"""torchvision's DenseNet (121/161/169/201) in Jittor, module for module: ``features`` is a
``Sequential`` with torchvision's named children (``conv0, norm0, relu0, pool0,
denseblock1, transition1, ..., norm5``), dense blocks are ``ModuleDict``s of ``denselayerN``.
Pretrained files use torchvision's old key spelling (``norm.1``); they are renamed on load as
torchvision does.  ``memory_efficient`` (checkpointing) is accepted and has no effect: the
values and gradients are the same, only torch's memory use differs."""
from __future__ import annotations

import collections
import re
from typing import Optional, Tuple

import jittor as jt

from ... import nn as snn
from ._weights import build, make_enum, resolve

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "DenseNet121_Weights",
           "DenseNet161_Weights", "DenseNet169_Weights", "DenseNet201_Weights"]

_OLD_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$")


class _DenseLayer(snn.Module):
    def __init__(self, num_input_features: int, growth_rate: int, bn_size: int, drop_rate: float,
                 memory_efficient: bool = False):
        super().__init__()
        self.norm1 = snn.BatchNorm2d(num_input_features)
        self.relu1 = jt.nn.ReLU()
        self.conv1 = jt.nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = snn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = jt.nn.ReLU()
        self.conv2 = jt.nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def execute(self, inputs):
        """New features from the concatenation of all previous ones (a Var or a list)."""
        x = jt.concat(list(inputs), 1) if isinstance(inputs, (list, tuple)) else inputs
        out = self.conv2(self.relu2(self.norm2(self.conv1(self.relu1(self.norm1(x))))))
        if self.drop_rate > 0:
            out = snn.dropout(out, p=self.drop_rate, training=self.is_train)
        return out


class _DenseBlock(snn.ModuleDict):
    def __init__(self, num_layers: int, num_input_features: int, bn_size: int, growth_rate: int,
                 drop_rate: float, memory_efficient: bool = False):
        super().__init__()
        for i in range(num_layers):
            self[f"denselayer{i + 1}"] = _DenseLayer(num_input_features + i * growth_rate, growth_rate=growth_rate,
                                                     bn_size=bn_size, drop_rate=drop_rate,
                                                     memory_efficient=memory_efficient)

    def execute(self, init_features):
        """Every layer sees all earlier features; the block returns their concatenation."""
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return jt.concat(features, 1)


class _Transition(snn.Sequential):
    def __init__(self, num_input_features: int, num_output_features: int):
        super().__init__()
        self.norm = snn.BatchNorm2d(num_input_features)
        self.relu = jt.nn.ReLU()
        self.conv = jt.nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = snn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(snn.Module):
    """torchvision's ``DenseNet(growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64,
    bn_size=4, drop_rate=0, num_classes=1000, memory_efficient=False)``: convs
    ``kaiming_normal_`` (fan_in), batch norms 1/0, the classifier's bias 0 (its weight keeps the
    Linear default), as torchvision."""

    def __init__(self, growth_rate: int = 32, block_config: Tuple[int, int, int, int] = (6, 12, 24, 16),
                 num_init_features: int = 64, bn_size: int = 4, drop_rate: float = 0, num_classes: int = 1000,
                 memory_efficient: bool = False):
        super().__init__()
        self.features = snn.Sequential(collections.OrderedDict([
            ("conv0", jt.nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
            ("norm0", snn.BatchNorm2d(num_init_features)),
            ("relu0", jt.nn.ReLU()),
            ("pool0", snn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
        ]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(
                num_layers=num_layers, num_input_features=num_features, bn_size=bn_size, growth_rate=growth_rate,
                drop_rate=drop_rate, memory_efficient=memory_efficient))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module(f"transition{i + 1}", _Transition(num_features, num_features // 2))
                num_features //= 2
        self.features.add_module("norm5", snn.BatchNorm2d(num_features))
        self.classifier = jt.nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, jt.nn.Conv2d):
                jt.init.kaiming_normal_(m.weight)
            elif isinstance(m, snn.BatchNorm2d):
                jt.init.constant_(m.weight, 1.0)
                jt.init.constant_(m.bias, 0.0)
            elif isinstance(m, jt.nn.Linear):
                jt.init.constant_(m.bias, 0.0)

    def execute(self, x):
        """features -> relu -> global average pool -> flatten -> classifier."""
        out = jt.nn.relu(self.features(x)).mean(dims=(2, 3))
        return self.classifier(out)


def _rename_old_keys(state_dict):
    """torchvision's ``_load_state_dict`` renaming: ``denselayer1.norm.1.weight`` -> ``denselayer1.norm1.weight``."""
    out = {}
    for k, v in state_dict.items():
        m = _OLD_KEY.match(k)
        out[m.group(1) + m.group(2) if m else k] = v
    return out


DenseNet121_Weights = make_enum("DenseNet121_Weights", "densenet121-a639ec97.pth")
DenseNet161_Weights = make_enum("DenseNet161_Weights", "densenet161-8d451a50.pth")
DenseNet169_Weights = make_enum("DenseNet169_Weights", "densenet169-b2777c0a.pth")
DenseNet201_Weights = make_enum("DenseNet201_Weights", "densenet201-c1103571.pth")


def _densenet(growth_rate, block_config, num_init_features, enum_cls, weights, pretrained, progress, kwargs):
    weights = resolve(weights, pretrained, enum_cls)
    return build(lambda **kw: DenseNet(growth_rate, block_config, num_init_features, **kw), weights, kwargs,
                 progress, remap=_rename_old_keys)


def densenet121(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> DenseNet:
    """torchvision's ``densenet121`` (growth 32, blocks (6, 12, 24, 16), 64 initial features)."""
    return _densenet(32, (6, 12, 24, 16), 64, DenseNet121_Weights, weights, pretrained, progress, kwargs)


def densenet161(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> DenseNet:
    """torchvision's ``densenet161`` (growth 48, blocks (6, 12, 36, 24), 96 initial features)."""
    return _densenet(48, (6, 12, 36, 24), 96, DenseNet161_Weights, weights, pretrained, progress, kwargs)


def densenet169(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> DenseNet:
    """torchvision's ``densenet169`` (growth 32, blocks (6, 12, 32, 32), 64 initial features)."""
    return _densenet(32, (6, 12, 32, 32), 64, DenseNet169_Weights, weights, pretrained, progress, kwargs)


def densenet201(weights=None, progress: bool = True, *, pretrained: Optional[bool] = None, **kwargs) -> DenseNet:
    """torchvision's ``densenet201`` (growth 32, blocks (6, 12, 48, 32), 64 initial features)."""
    return _densenet(32, (6, 12, 48, 32), 64, DenseNet201_Weights, weights, pretrained, progress, kwargs)
