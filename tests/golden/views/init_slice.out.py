import numpy as np
import shims
import jittor as jt


def geometric_init(lin, out_dim, skip_dim):
    # torch: the init functions fill parts of the weight, through slices of it
    jt.init.constant_(lin.bias, 0.0)
    lin.weight[:, 3:] = jt.init.constant_(lin.weight[:, 3:], 0.0)
    lin.weight[:, :3] = jt.init.gauss_(lin.weight[:, :3], 0.0, np.sqrt(2) / np.sqrt(out_dim))
    lin.weight[0] = jt.init.uniform_(var=lin.weight[0], low=-1.0, high=1.0)  # a row
    lin.weight[:, -skip_dim:] = shims.zeros_(lin.weight[:, -skip_dim:])
    return lin
