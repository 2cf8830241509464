import shims


@shims.jit.identity_decorator
def pad_same(x):
    return x


class Net(shims.nn.Module):
    fused_attn: shims.jit.Final[bool]

    def __init__(self):
        super().__init__()
        self.fused_attn = True

    @shims.jit.identity_decorator
    def no_weight_decay(self):
        return {"pos"}

    @shims.jit.identity_decorator(drop=True)
    def debug(self):
        return 0

    def execute(self, x):
        if shims.jit.is_scripting() or shims.jit.is_tracing() or shims.jit.is_compiling():
            return x
        return pad_same(x)


net = shims.jit.compile(Net(), mode="max-autotune")
scripted = shims.jit.script(pad_same)
disable = getattr(shims.namespace("torch.compiler"), "disable", None) or (lambda f: f)
