import shims
import jittor as jt
from jittor import nn


class Trainer(shims.nn.Module):
    """HiSD's trainer: losses assigned to self in update() are plain tensors in torch."""

    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(2, 2)
        self.gain = jt.ones(2).start_grad()
        self.frozen = jt.zeros(2).stop_grad()
        self.extra = None

    def update(self, x):
        self.loss_gen = self.gen(x).mean()  # no Parameter: stays a plain attribute
        self.extra = shims.nn.parameter(jt.zeros(2))  # a Parameter made after __init__: marked
        return self.loss_gen

    def execute(self, x):
        if self.extra is None:
            self.extra = shims.nn.parameter(jt.zeros(2), False)
        return self.gen(x) * self.gain


def make_scale(n):
    return shims.nn.parameter(jt.ones(n))
