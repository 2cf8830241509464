import shims


def inspect(x, net, dataset):
    a = x.grad_fn is None  # no autograd nodes in Jittor: marked  # jtport: JT001 torch.Tensor.grad_fn: Jittor keeps no autograd graph nodes on Vars: to ask whether a tensor was computed with gradient, test x.requires_grad and not x.is_leaf
    b = (x.layout, x.is_quantized, x.retains_grad, x.imag)  # jtport: JT001 torch.Tensor.layout: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand; JT001 torch.Tensor.retains_grad: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand; JT001 torch.Tensor.imag: Jittor has no complex dtype: complex tensors cannot be ported (marked, never passed to Jittor) (torch raises for .imag of a real tensor too)
    c = x.T, x.mT, x.is_cuda, x.shape, x.ndim  # what the Var has (shims installs T, mT, is_cuda)
    _, predicted = shims.max(shims.data_of(net(x)), 1)  # torch's .data: the tensor, detached
    w = shims.views.detach_view(net.weight)
    w.mul_(2)  # torch writes through w into net.weight
    return a, b, c, predicted, shims.data_of(dataset)  # not a Var at run time: its own .data


def sgd(net, lr):
    for p in net.parameters():
        p.data -= lr * p.grad  # writes through .data stay: Jittor's numpy view shares the Var's memory
        p.data[0] = 0.0
        shims.clamp_(p, -1, 1)
        shims.zeros_(p)
