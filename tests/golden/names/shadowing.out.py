import numpy as np
import shims
import jittor as jt
from jittor import nn as F


def apply(F, x):
    # F is a parameter here, not torch.nn.functional
    return F(x)


def reshape_numpy():
    return np.zeros(3).reshape(3, 1).var(0)


def rebinding(x):
    torch = None  # a local that shadows the import
    return torch


def uses_torch(x):
    return jt.concat([F.relu(x), "abc".clamp(0)], 0).clamp(min_v=0)


def user_classes(device):
    from model import Net
    from numpy import zeros
    net = shims.var(Net(), 0)
    return net, zeros(3).var(0)
