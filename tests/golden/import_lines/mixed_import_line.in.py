import numpy as np, torch
import os.path, torch.nn as nn, sys as system


def make():
    data = np.arange(4, dtype=np.float32)
    layer = nn.Linear(4, 2)
    return layer(torch.from_numpy(data)), os.path.sep, system.argv
