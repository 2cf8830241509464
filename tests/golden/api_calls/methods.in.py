import torch


def stats(x: torch.Tensor):
    m = x.var(1, keepdim=True)
    x.masked_fill_(x > 0, 0.0)
    s = torch.randn(3).var()
    return m.clamp(0, 1), x.clamp(min=-1, max=1).to(torch.float32), torch.mm(x, x.t())
