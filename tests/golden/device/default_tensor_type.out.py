import shims
import jittor as jt
torch = shims.unported("torch")


def render(n):
    return jt.ones([n, 3])


if __name__ == "__main__":
    jt.flags.use_cuda = jt.has_cuda
    torch.set_default_tensor_type(torch.DoubleTensor)  # jtport: JT001 torch.DoubleTensor: no Jittor mapping for this torch API; JT001 torch.set_default_tensor_type: no Jittor mapping for this torch API
    render(4)
