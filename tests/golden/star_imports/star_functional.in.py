from torch.nn.functional import *  # one line for all of F
from torch.nn.modules.conv import *


def f(x, m: Optional[int] = None):
    w = math.sqrt(2.0)  # math comes with the star import
    return leaky_relu(x, 0.2) * w, softmax(x, dim=1), Conv2d
