import torch
import torch.nn as nn


def inspect(x, net, dataset):
    a = x.grad_fn is None  # no autograd nodes in Jittor: marked
    b = (x.layout, x.is_quantized, x.retains_grad, x.imag)
    c = x.T, x.mT, x.is_cuda, x.shape, x.ndim  # what the Var has (shims installs T, mT, is_cuda)
    _, predicted = torch.max(net(x).data, 1)  # torch's .data: the tensor, detached
    w = net.weight.data
    w.mul_(2)  # torch writes through w into net.weight
    return a, b, c, predicted, dataset.data  # not a Var at run time: its own .data


def sgd(net, lr):
    for p in net.parameters():
        p.data -= lr * p.grad  # writes through .data stay: Jittor's numpy view shares the Var's memory
        p.data[0] = 0.0
        p.data.clamp_(-1, 1)
        nn.init.zeros_(p.data)
