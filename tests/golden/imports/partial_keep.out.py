import shims
Weird = shims.unported("torch.nn.Weird")
from jittor.nn import Conv2d
from shims.nn import MaxPool2d


class Block:
    def __init__(self):
        self.conv = Conv2d(3, 3, 3)
        self.odd = Weird(3)  # jtport: JT001 torch.nn.Weird: Jittor has no Weird layer
        self.pool = MaxPool2d(2)
