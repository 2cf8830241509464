import torch


def multi(loss_a, loss_b, y, g):
    torch.autograd.backward([loss_a, loss_b])
    torch.autograd.backward(y, grad_tensors=g, retain_graph=True)
    torch.autograd.backward([y], inputs=[g])
