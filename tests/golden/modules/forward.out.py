import shims
from jittor import nn


class Block(shims.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def execute(self, x):
        return self.fc(x)


class Residual(Block):  # a module through a local base
    def execute(self, x):
        y = super().execute(x)
        y = Block.execute(self, y)
        return x + self.forward_once(y)

    def forward_once(self, x):
        return x


class Wrapped(shims.nn.Sequential):
    def execute(self, x):
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
