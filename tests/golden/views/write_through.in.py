import torch


def normalize_(x, items, mask):
    # torch: each of these writes changes x, through a view of it (so does the port: shims.views)
    y = x.detach()
    y[0] = 5.0
    z = x.view(-1)
    z.add_(1)
    s = x.transpose(0, 1)
    s[:, 0] += 1
    a = x.detach(); a[1] = 2.0
    # no view: a clone, a rebound name, a list copy, a gradient flag
    w = x.clone()
    w[0] = 1.0
    v = x.t()
    v = v * 2
    v[0] = 3.0
    u = items.copy()
    u[0] = 1
    d = x.detach()
    d.requires_grad_()
    return x
