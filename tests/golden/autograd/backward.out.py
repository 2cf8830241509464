import shims


def multi(loss_a, loss_b, y, g):
    shims.autograd.backward([loss_a, loss_b])
    shims.autograd.backward(y, grad_tensors=g, retain_graph=True)
    shims.autograd.backward([y], inputs=[g])
