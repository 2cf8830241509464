import torch
import torch.nn as nn


@torch.weird_decorator
def f(x):
    for i in torch.weird_range(3):  # loop comment
        x = x + i
    y = torch.cat([x, x], 0)  # keep me
    z = nn.Weird(3)
    if torch.is_weird(x): z = torch.cat([z], 0)
    return nn.Unknown(y, z), torch.nn.functional.interpolate(x, scale_factor=2, antialias=True)
