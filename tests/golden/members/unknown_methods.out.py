import shims

def f(x, y):
    a = x.geqrf()  # jtport: JT001 torch.Tensor.geqrf: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    b = y.q_scale()  # jtport: JT001 torch.Tensor.q_scale: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    c = x.orgqr(y)  # jtport: JT001 torch.Tensor.orgqr: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    d = shims.lt_(shims.broadcast_to(x, (3, -1)), 2)  # mapped since issue 17
    return a, b, c, d, shims.sum(x, 1)
