import torch


def leaves(x, flag):
    w = torch.zeros(3, 4, requires_grad=True)
    noise = torch.randn(4, requires_grad=False)
    scale = torch.ones_like(w, requires_grad=flag) * 2
    b = torch.tensor([0.5, 1.5], requires_grad=True)
    loss = ((x @ w + noise) * scale).sum() + b.sum()
    loss.backward()
    return w.grad, b.grad
