import shims
from shims.nn import leaky_relu, softmax  # one line for all of F
from typing import Optional
import math
from torch.nn.modules.conv import *  # jtport: JT001 torch.nn.modules.conv.*: star import of a torch module jtport has no list of names for: import the names you use explicitly


def f(x, m: Optional[int] = None):
    w = math.sqrt(2.0)  # math comes with the star import
    return leaky_relu(x, 0.2) * w, softmax(x, dim=1), Conv2d
