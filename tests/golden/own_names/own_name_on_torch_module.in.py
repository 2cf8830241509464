import torch
import torch.nn as nn


class MaskedLinear(nn.Module):
    def __init__(self, n_in, n_out, mask):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.register_buffer("mask", mask)

    def forward(self, x):
        return nn.functional.linear(x, self.linear.weight * self.mask, self.linear.bias)


nn.MaskedLinear = MaskedLinear
torch.backends.cudnn.benchmark = True


def made(n):
    return nn.Sequential(nn.MaskedLinear(n, n, torch.ones(n, n)), nn.ReLU())
