import torch


def surgery(model, x, a, c, beta):
    # torch: each write goes through a view expression written in one line
    model.weight.detach().mul_(0)
    x.detach()[0] = 1.0
    x[:, :2].mul_(3)
    x.view(-1)[:3].zero_()
    x[:, 0].fill_(7.0)
    x.t()[1].add_(a[0])
    torch.nn.init.ones_(x.transpose(0, 1)[0])
    x.data.mul_(beta)
    # written through a name: .data and detach() of a graph node are recorded views too
    w = model.weight.data
    w[0] = 0.0
    h = x.detach()
    h.clamp_(-1.0, 1.0)
    g = x.detach()
    g += 1.0
    # no write: a detach read, a detach of the source of a write
    y = x.detach().sum()
    c.copy_(a.detach())
    return x, y
