import shims
torch = shims.unported("torch")


def multi(loss_a, loss_b, y, g):
    shims.optim.backward(loss_a + loss_b)
    shims.optim.backward((y * g).sum(), retain_graph=True)
    torch.autograd.backward([y], inputs=[g])  # jtport: JT103 torch.autograd.backward: inputs= (gradients for chosen leaves only) has no shims.optim.backward form
