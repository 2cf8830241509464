import torch
from torch import nn

_LAYERS = {"relu": nn.ReLU, "gelu": nn.GELU, "linear": nn.Linear}


class Block(nn.Module):
    def __init__(self, dim, act_layer=nn.ReLU, norm_layer=nn.LayerNorm, device=None, dtype=None):
        super().__init__()
        dd = {"device": device, "dtype": dtype}
        self.act = act_layer(inplace=True)
        self.norm = norm_layer(dim)
        self.pos = nn.Parameter(torch.zeros(1, 1, dim, **dd))
        self.extra = torch.empty(dim, **dd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if isinstance(self.act, (nn.ReLU, nn.GELU)) and not isinstance(self.norm, nn.Identity):
            x = self.norm(x)
        return self.act(x) + self.pos


class Linear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
