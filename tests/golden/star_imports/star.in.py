from torch import *
from torch.nn import *
import torch.nn.functional as F


def relu6(x):  # the file's own name wins over the star import's
    return x


class Net(Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv2d(3, 8, 1)

    def forward(self, x: Tensor):
        y = relu(self.conv(x))
        return var(y, 1) + zeros(8) + relu6(y).sum(1)


def unported(x):
    return histogramdd(x)
