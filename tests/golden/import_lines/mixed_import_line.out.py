import shims
import numpy as np
import os.path, sys as system
from jittor import nn


def make():
    data = np.arange(4, dtype=np.float32)
    layer = nn.Linear(4, 2)
    return layer(shims.from_numpy(data)), os.path.sep, system.argv
