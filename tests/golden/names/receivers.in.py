import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from . import ops
from utils import misc as M
from jittor import nn as jnn


class RenderingNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.relu(x)             # a module attribute, not a tensor method
        return self.act.relu(x)      # unknown attribute: may be a tensor


def metrics(x, img):
    a = np.zeros((3, 4))
    rows = a.sum(axis=1)             # numpy
    b = [3, 1, 2]
    c = sorted(b).clip(0, 1)         # a builtin's result
    d = {"k": 1}.sum()               # a literal
    y = ops.sum(x, dim=1)            # an imported module
    z = M.var(x)                     # an imported alias
    j = jnn.relu(x)                  # Jittor itself
    w = x.var(1)                     # may be a tensor: converted
    v = np.ones(3).var()             # computed from numpy
    return rows, c, d, y, z, j, w, v, F.relu(img).sum(0)
