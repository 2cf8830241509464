import shims
import jittor as jt
torch = shims.unported("torch")


@torch.weird_decorator  # jtport: JT001 torch.weird_decorator: no Jittor mapping for this torch API
def f(x):
    for i in torch.weird_range(3):  # loop comment  # jtport: JT001 torch.weird_range: no Jittor mapping for this torch API
        x = x + i
    y = jt.concat([x, x], 0)  # keep me
    z = torch.nn.Weird(3)  # jtport: JT001 torch.nn.Weird: Jittor has no Weird layer
    if torch.is_weird(x): z = jt.concat([z], 0)  # jtport: JT001 torch.is_weird: no Jittor mapping for this torch API
    return torch.nn.Unknown(y, z), torch.nn.functional.interpolate(x, scale_factor=2, antialias=True)  # jtport: JT001 torch.nn.Unknown: no Jittor mapping for this torch API; JT002 torch.nn.functional.interpolate: argument antialias=True: no antialiasing in Jittor
