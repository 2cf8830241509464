import shims

def f(x, y):
    a = x.broadcast_to((3, 3))  # jtport: JT001 torch.Tensor.broadcast_to: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    b = y.byte()  # jtport: JT001 torch.Tensor.byte: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    c = x.lt_(2)  # jtport: JT001 torch.Tensor.lt_: not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand
    return a, b, c, shims.sum(x, 1)
