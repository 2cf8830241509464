import torch
from torch import nn


@torch.fx.wrap
def pad_same(x):
    return x


class Net(nn.Module):
    fused_attn: torch.jit.Final[bool]

    def __init__(self):
        super().__init__()
        self.fused_attn = True

    @torch.jit.ignore
    def no_weight_decay(self):
        return {"pos"}

    @torch.jit.ignore(drop=True)
    def debug(self):
        return 0

    def forward(self, x):
        if torch.jit.is_scripting() or torch.jit.is_tracing() or torch.compiler.is_compiling():
            return x
        return pad_same(x)


net = torch.compile(Net(), mode="max-autotune")
scripted = torch.jit.script(pad_same)
disable = getattr(torch.compiler, "disable", None) or (lambda f: f)
