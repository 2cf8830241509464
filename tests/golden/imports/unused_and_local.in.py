import math

# torch is imported but only used inside a function
import torch  # framework
import torch.nn.functional as F  # activations


def act(x):
    import torch.nn as nn  # a local import
    return nn.Conv2d(1, 1, 1)(x)


def plain(x):
    return math.sqrt(x)
