import torch.nn as nn
from torch import nn as tnn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


class Residual(Block):  # a module through a local base
    def forward(self, x):
        y = super().forward(x)
        y = Block.forward(self, y)
        return x + self.forward_once(y)

    def forward_once(self, x):
        return x


class Wrapped(tnn.Sequential):
    def forward(self, x):
        for m in self:
            x = m(x)
        return x


class Helper:
    def forward(self, x):  # not a module: left alone
        return x


def forward(x):
    return x


def run(model, x):
    return model.forward(x)
