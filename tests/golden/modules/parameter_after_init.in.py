import torch
import torch.nn as nn


class Trainer(nn.Module):
    """HiSD's trainer: losses assigned to self in update() are plain tensors in torch."""

    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(2, 2)
        self.gain = nn.Parameter(torch.ones(2))
        self.frozen = nn.Parameter(torch.zeros(2), requires_grad=False)
        self.extra = None

    def update(self, x):
        self.loss_gen = self.gen(x).mean()  # no Parameter: stays a plain attribute
        self.extra = nn.Parameter(torch.zeros(2))  # a Parameter made after __init__: marked
        return self.loss_gen

    def forward(self, x):
        if self.extra is None:
            self.extra = nn.Parameter(torch.zeros(2), requires_grad=False)
        return self.gen(x) * self.gain


def make_scale(n):
    return nn.Parameter(torch.ones(n))
