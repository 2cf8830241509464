import shims


def surgery(model, x, a, c, beta):
    # torch: each write goes through a view expression written in one line
    shims.views.detach_view(model.weight).mul_(0)
    shims.views.detach_view(x)[0] = 1.0
    x[:, :2].mul_(3)
    x.view(-1)[:3].zero_()
    x[:, 0].fill_(7.0)
    shims.add_(shims.t(x)[1], a[0])
    shims.ones_(shims.transpose(x, 0, 1)[0])
    x.mul_(beta)
    # written through a name: .data and detach() of a graph node are recorded views too
    w = shims.views.detach_view(model.weight)
    w[0] = 0.0
    h = shims.views.detach_view(x)
    shims.clamp_(h, -1.0, 1.0)
    g = shims.views.detach_view(x)
    g += 1.0
    # no write: a detach read, a detach of the source of a write
    y = shims.sum(x.detach())
    shims.copy_(c, a.detach())
    return x, y
