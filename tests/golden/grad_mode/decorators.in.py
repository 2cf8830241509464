import torch


@torch.no_grad
def ema(a, b):
    return a.lerp(b, 0.5)


def stat(x, name):
    return getattr(torch, name)(x)


def move(x):
    x = x.cuda()  # to the GPU
    return torch.relu(x)
