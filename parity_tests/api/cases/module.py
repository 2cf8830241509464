"""``torch.nn.Module`` methods on a converted module (``shims.nn.Module``): dtype casts, lookup by
name, forward hooks with handles, traversal, and the trap of a tensor assigned to ``self`` in
``forward`` (a plain attribute in torch, a trainable parameter in Jittor)."""
from ..case import case

A = "module"
NET = """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.register_buffer('scale', torch.full((4,), 2.0))

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        self.features = self.block(x)  # torch: a plain attribute, never a parameter
        return self.head(self.features)


m = Net()
"""
LIN = dict(rtol=1e-5, atol=1e-6, why="two float32 matmuls of <= 6 products")


def meth(name, src, inputs=None, variant="", **kw):
    return case(A, f"torch.nn.Module.{name}", src, {"x": "f32[5,6]"} if inputs is None else inputs,
                variant=variant, setup=NET, **{**LIN, **kw})


def names(expr):
    """Names as exactly compared code points (strings are not compared by the harness)."""
    return f"[ord(ch) for n in {expr} for ch in n + '|']"


CASES = [
    case(A, "torch.nn.Module", "y = m(x)\nout = (y, m.features, len(list(m.parameters())), len(m.state_dict()), "
         + names("m.state_dict()") + ")", {"x": "f32[5,6]"}, variant="tensor_assigned_in_forward", setup=NET, **LIN),
    meth("double", "m.double()\nout = (m(x.double()), m.block.scale)", rtol=1e-12, atol=2e-8,
         why="float64 weights and input: outputs agree to 1e-16; the harness projects Jittor's outputs "
             "in float32 for the gradient (measured 7e-7 relative), so atol 2e-8 (x10 for gradients)"),
    meth("float", "m.double()\nm.float()\nout = m(x)"),
    meth("half", "m.half()\nout = (m.head.weight, m.block.scale)", grad=False),
    meth("get_parameter", "out = (m.get_parameter('block.fc.weight') * 1, m.get_parameter('head.bias') * 1)"),
    meth("get_buffer", "out = m.get_buffer('block.scale') * 1"),
    meth("get_submodule", "out = m.get_submodule('block.fc')(x)"),
    meth("register_forward_pre_hook",
         "def hook(mod, args):\n    return (args[0] * 2,)\n\n"
         "h = m.head.register_forward_pre_hook(hook)\na = m(x)\nh.remove()\nout = (a, m(x))"),
    meth("register_forward_pre_hook",
         "def hook(mod, args, kwargs):\n    return (args[0] + 1,), kwargs\n\n"
         "m.block.register_forward_pre_hook(hook, with_kwargs=True)\nout = m(x)", variant="with_kwargs"),
    meth("register_forward_hook",
         "seen = []\n\ndef hook(mod, args, output):\n    seen.append(output.shape[-1])\n    return output - 1\n\n"
         "with m.block.register_forward_hook(hook):\n    a = m(x)\nout = (a, m(x), seen)"),
    meth("parameters", "out = [p * 1 for p in m.parameters()]"),
    meth("named_parameters", "out = " + names("[n for n, _ in m.named_parameters()]"), grad=False),
    meth("buffers", "out = list(m.buffers())"),
    meth("named_buffers", "out = " + names("[n for n, _ in m.named_buffers()]"), grad=False),
    meth("children", "out = len(list(m.children()))", grad=False),
    meth("named_modules", "out = " + names("[n for n, _ in m.named_modules()]"), grad=False),
    meth("modules", "out = len(list(m.modules()))", grad=False),
    meth("apply", "def init(mod):\n    if isinstance(mod, nn.Linear):\n        nn.init.constant_(mod.bias, 0.5)\n\n"
         "m.apply(init)\nout = (m.head.bias, m(x))"),
    meth("register_parameter", "m.register_parameter('gain', nn.Parameter(torch.ones(3) * 3))\n"
         "out = (m(x) * m.gain, len(list(m.parameters())))"),
    meth("zero_grad", "m.zero_grad()\nout = m(x)"),
]
