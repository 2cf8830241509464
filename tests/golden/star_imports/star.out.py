import shims
histogramdd = shims.unported("torch.histogramdd")
from shims import Tensor, relu, var
from jittor import zeros
from shims.nn import Module, Conv2d


def relu6(x):  # the file's own name wins over the star import's
    return x


class Net(Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv2d(3, 8, 1)

    def execute(self, x: Tensor):
        y = relu(self.conv(x))
        return var(y, 1) + zeros(8) + shims.sum(relu6(y), 1)


def unported(x):
    return histogramdd(x)  # jtport: JT001 torch.histogramdd: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
