import shims
from jittor import nn

_LAYERS = {"relu": shims.namespace("torch.nn").ReLU, "gelu": shims.namespace("torch.nn").GELU, "linear": shims.namespace("torch.nn").Linear}


class Block(shims.nn.Module):
    def __init__(self, dim, act_layer=shims.namespace("torch.nn").ReLU, norm_layer=shims.nn.LayerNorm, device=None, dtype=None):
        super().__init__()
        dd = {"device": device, "dtype": dtype}
        self.act = act_layer(inplace=True)
        self.norm = norm_layer(dim)
        self.pos = shims.namespace("torch").zeros(1, 1, dim, **dd).start_grad()
        self.set_tensor_attr("extra", shims.namespace("torch").empty(dim, **dd))

    def execute(self, x: shims.Tensor) -> shims.Tensor:
        if isinstance(self.act, (nn.ReLU, nn.GELU)) and not isinstance(self.norm, nn.Identity):
            x = self.norm(x)
        return self.act(x) + self.pos


class Linear(shims.namespace("torch.nn").Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias)
        shims.nn.with_dtype(self, dtype)
