import numpy as np
import shims
torch = shims.unported("torch")
from jittor import nn
from jittor import nn as F
from . import ops
from utils import misc as M
from jittor import nn as jnn


class RenderingNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU()  # jtport: JT001 torch.nn.ReLU: no Jittor mapping for this torch API

    def execute(self, x):
        x = self.relu(x)             # a module attribute, not a tensor method
        return shims.relu(self.act, x)      # unknown attribute: may be a tensor


def metrics(x, img):
    a = np.zeros((3, 4))
    rows = a.sum(axis=1)             # numpy
    b = [3, 1, 2]
    c = sorted(b).clip(0, 1)         # a builtin's result
    d = {"k": 1}.sum()               # a literal
    y = ops.sum(x, dim=1)            # an imported module
    z = M.var(x)                     # an imported alias
    j = jnn.relu(x)                  # Jittor itself
    w = shims.var(x, 1)                     # may be a tensor: converted
    v = np.ones(3).var()             # computed from numpy
    return rows, c, d, y, z, j, w, v, shims.sum(F.relu(img), 0)
