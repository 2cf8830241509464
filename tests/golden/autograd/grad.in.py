import torch
from torch import autograd


def r1_penalty(D, real_img):
    real_img_tmp = real_img.detach().requires_grad_(True)
    real_logits = D(real_img_tmp)
    r1_grads = torch.autograd.grad(outputs=[real_logits.sum()], inputs=[real_img_tmp],
                                   create_graph=True, only_inputs=True)[0]
    return r1_grads.square().sum([1, 2, 3])


def gradient(sdf, x):
    y = sdf(x)
    d_output = torch.ones_like(y, requires_grad=False)
    gradients = torch.autograd.grad(
        outputs=y,
        inputs=x,
        grad_outputs=d_output,
        create_graph=True,
        retain_graph=True,
        only_inputs=True)[0]
    return gradients


def path_length(fake_img, ws, pl_noise):
    pl_grads, = autograd.grad(outputs=[(fake_img * pl_noise).sum()], inputs=[ws], create_graph=True)
    both = autograd.grad([fake_img, ws], ws, grad_outputs=[pl_noise, None], allow_unused=True)
    return pl_grads, both


def batched(y, x, v):
    return torch.autograd.grad(y, x, v, is_grads_batched=True)
