import shims
import jittor as jt


def constant(tensor, memory_format=shims.contiguous_format):
    # StyleGAN2-ADA's misc.constant: the layout is an argument, the value is the same
    return tensor.contiguous()


x = jt.ones(2, 3, 4, 4)
y = x.contiguous()
print(constant(x).shape, y.shape)
