import shims
import jittor as jt


def leaves(x, flag):
    w = jt.zeros(3, 4).requires_grad_(True)
    noise = jt.randn(4)
    scale = jt.ones_like(w).requires_grad_(flag) * 2
    b = shims.tensor([0.5, 1.5], requires_grad=True)
    loss = shims.sum(((x @ w + noise) * scale)) + shims.sum(b)
    loss.backward()
    return w.grad, b.grad
