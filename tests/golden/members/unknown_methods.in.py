import torch

def f(x, y):
    a = x.geqrf()
    b = y.q_scale()
    c = x.orgqr(y)
    d = x.broadcast_to((3, -1)).lt_(2)  # mapped since issue 17
    return a, b, c, d, x.sum(1)
