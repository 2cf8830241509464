import shims


def normalize_(x, items, mask):
    # torch: each of these writes changes x, through a view of it
    y = x.detach()
    y[0] = 5.0  # jtport: JT107 torch.Tensor.detach: y = x.detach(...) shares x's storage in torch, so this write changes x too; a Jittor Var is a copy and x stays unchanged: write into x itself if the code relies on it
    z = x.view(-1)
    shims.add_(z, 1)  # jtport: JT107 torch.Tensor.view: z = x.view(...) shares x's storage in torch, so this write changes x too; a Jittor Var is a copy and x stays unchanged: write into x itself if the code relies on it
    s = shims.transpose(x, 0, 1)
    s[:, 0] += 1  # jtport: JT107 torch.Tensor.transpose: s = x.transpose(...) shares x's storage in torch, so this write changes x too; a Jittor Var is a copy and x stays unchanged: write into x itself if the code relies on it
    a = x.detach(); a[1] = 2.0  # jtport: JT107 torch.Tensor.detach: a = x.detach(...) shares x's storage in torch, so this write changes x too; a Jittor Var is a copy and x stays unchanged: write into x itself if the code relies on it
    # no view: a clone, a rebound name, a list copy, a gradient flag
    w = x.clone()
    w[0] = 1.0
    v = shims.t(x)
    v = v * 2
    v[0] = 3.0
    u = items.copy()
    u[0] = 1
    d = x.detach()
    d.requires_grad_()
    return x
