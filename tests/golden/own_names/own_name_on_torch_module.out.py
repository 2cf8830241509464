import shims
import jittor as jt
from jittor import nn


class MaskedLinear(shims.nn.Module):
    def __init__(self, n_in, n_out, mask):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.register_buffer("mask", mask)

    def execute(self, x):
        return jt.nn.linear(x, self.linear.weight * self.mask, self.linear.bias)


nn.MaskedLinear = MaskedLinear


def made(n):
    return shims.nn.Sequential(nn.MaskedLinear(n, n, jt.ones(n, n)), nn.ReLU())
