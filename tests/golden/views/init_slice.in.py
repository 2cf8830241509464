import numpy as np
import torch
import torch.nn as nn


def geometric_init(lin, out_dim, skip_dim):
    # torch: the init functions fill parts of the weight, through slices of it
    torch.nn.init.constant_(lin.bias, 0.0)
    torch.nn.init.constant_(lin.weight[:, 3:], 0.0)
    torch.nn.init.normal_(lin.weight[:, :3], 0.0, np.sqrt(2) / np.sqrt(out_dim))
    nn.init.uniform_(tensor=lin.weight[0], a=-1.0, b=1.0)  # a row
    nn.init.zeros_(lin.weight[:, -skip_dim:])
    return lin
