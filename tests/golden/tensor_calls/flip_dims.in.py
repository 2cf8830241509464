import torch


def reverse(z, x):
    a = torch.flip(z, dims=[-1])
    b = torch.flip(x, [0, 1])
    c = x.flip(dims=(0,))
    d = x.flip(1)
    return a, b, c, d


def reverse_more(x):
    return x.flip(0, -1), torch.flip(x, (-2,))
