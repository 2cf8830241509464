import torch


def moments(x: torch.Tensor, parts):
    m = torch.stack([torch.ones_like(x).sum(), x.sum(), x.square().sum()])
    n = torch.stack((torch.mean(x), x.max()), dim=-1)
    rows = torch.stack([x.sum(1), x.mean(1)])
    listed = torch.stack(parts)
    return m, n, rows, listed
