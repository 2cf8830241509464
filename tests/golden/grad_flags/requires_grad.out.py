import shims
import jittor as jt


def penalty(D, G, real, z):
    D.requires_grad_(False)  # a module: shims.nn.Module.requires_grad_
    fake = G(z)
    x = real.detach().requires_grad_()
    w = jt.zeros(3).requires_grad_(True)
    frozen = real.clone()[0].requires_grad_(False)
    for p in G.parameters():
        p.requires_grad = False
    with jt.no_grad():
        ref = D(fake)
    return x, w, frozen, ref
