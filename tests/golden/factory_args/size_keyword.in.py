import torch
import torch.nn as nn


class GraphAttention(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.W = nn.Parameter(torch.empty(size=(n_in, n_out)))
        self.a = nn.Parameter(torch.zeros(size=(2 * n_out, 1), dtype=torch.float32))


def noise(shape):
    return torch.randn(size=shape) + torch.rand(size=shape, requires_grad=True) + torch.ones(size=shape)
