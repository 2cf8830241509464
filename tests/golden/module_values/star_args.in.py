import torch


def noise_like(shape, n):
    # star arguments hide the call's arguments: the row's policy is applied when the call runs
    zeros = torch.zeros(*shape)
    noise = torch.randn(n, *shape)
    return zeros, noise
