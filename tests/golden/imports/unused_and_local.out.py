import math

# torch is imported but only used inside a function
import shims
# framework
# activations


def act(x):
    from jittor import nn  # a local import
    return nn.Conv2d(1, 1, 1)(x)


def plain(x):
    return math.sqrt(x)
