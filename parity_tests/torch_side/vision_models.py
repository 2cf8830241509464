"""Torch side of ``parity_tests/test_vision_models.py``: torchvision's models, random init.

For every builder, ``layout.json`` gets its ``state_dict`` keys and shapes (in order) and the
class names of ``children()``/``modules()``.  For the models proven numerically, ``<name>.pt``
is the seeded model's ``state_dict`` (batch-norm running stats and affine parameters
randomised so eval mode is not an identity), and ``<name>.npz`` holds the input, the eval-mode
output, the fixed cotangent ``cot`` and the gradients of ``(out * cot).sum()`` w.r.t. the input
(``gx``) and every parameter (``g:<key>``).  ``vgg16_features`` is the MCCNet case: VGG-16's
``features`` and its slices ``Sequential(*list(features.children())[a:b])``, chained.
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
from torchvision import models

LAYOUT = ["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "resnet18",
          "resnet34", "resnet50", "resnet101", "resnet152", "alexnet", "squeezenet1_0", "squeezenet1_1",
          "mobilenet_v2", "densenet121", "densenet161", "densenet169", "densenet201"]
#: model -> input shape of the numeric check (small: this runs on a CPU)
NUMERIC = {"resnet18": (1, 3, 64, 64), "resnet50": (1, 3, 32, 32), "squeezenet1_1": (1, 3, 64, 64),
           "mobilenet_v2": (1, 3, 32, 32), "densenet121": (1, 3, 32, 32),
           "vgg16_features": (1, 3, 32, 32)}
#: the MCCNet/AdaIN-style encoder: vgg16.features cut into slices, each run on the previous one's output
SLICES = [(0, 4), (4, 9), (9, 16), (16, 23), (23, 31)]


def layout(name):
    m = getattr(models, name)()
    return {"keys": [[k, list(v.shape)] for k, v in m.state_dict().items()],
            "children": [type(c).__name__ for c in m.children()],
            "modules": [type(c).__name__ for c in m.modules()]}


def randomise_norms(m, gen):
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            n = mod.num_features
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                mod.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                mod.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                mod.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def numeric(out_dir, name, shape):
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    m = models.vgg16().features if name == "vgg16_features" else getattr(models, name)()
    randomise_norms(m, gen)
    m.eval()
    torch.save(m.state_dict(), os.path.join(out_dir, name + ".pt"))
    x = torch.randn(*shape, generator=gen, requires_grad=True)
    out = m(x)
    cot = torch.randn(out.shape, generator=gen)
    (out * cot).sum().backward()
    res = {"x": x.detach().numpy(), "out": out.detach().numpy(), "cot": cot.numpy(), "gx": x.grad.numpy()}
    res.update({"g:" + k: p.grad.numpy() for k, p in m.named_parameters()})
    if name == "vgg16_features":
        with torch.no_grad():
            h = x
            for a, b in SLICES:
                h = nn.Sequential(*list(m.children())[a:b])(h)
                res[f"slice:{a}:{b}"] = h.numpy()
    np.savez(os.path.join(out_dir, name + ".npz"), **res)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    with open(os.path.join(out, "layout.json"), "w") as f:
        json.dump({name: layout(name) for name in LAYOUT}, f)
    for name, shape in NUMERIC.items():
        numeric(out, name, shape)


if __name__ == "__main__":
    main()
