import shims
import jittor as jt
torch = shims.unported("torch")


def r1_penalty(D, real_img):
    real_img_tmp = real_img.detach().requires_grad_(True)
    real_logits = D(real_img_tmp)
    r1_grads = jt.grad(real_logits.sum(), [real_img_tmp])[0]
    return r1_grads.square().sum([1, 2, 3])


def gradient(sdf, x):
    y = sdf(x)
    d_output = jt.ones_like(y)
    gradients = jt.grad((y * d_output).sum(), x if isinstance(x, (list, tuple)) else [x])[0]
    return gradients


def path_length(fake_img, ws, pl_noise):
    pl_grads, = jt.grad((fake_img * pl_noise).sum(), [ws])
    both = jt.grad((fake_img * pl_noise).sum() + ws, ws if isinstance(ws, (list, tuple)) else [ws])  # jtport: JT103 torch.autograd.grad: allow_unused: Jittor returns zeros (not None) for inputs the outputs do not depend on
    return pl_grads, both


def batched(y, x, v):
    return torch.autograd.grad(y, x, v, is_grads_batched=True)  # jtport: JT103 torch.autograd.grad: is_grads_batched= has no Jittor equivalent
