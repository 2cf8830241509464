import torch
import torch.nn.functional as F


def f(x, y):
    a = F.leaky_relu(x, 0.2, True)
    b = F.leaky_relu(x, negative_slope=0.1, inplace=False)
    c = F.leaky_relu(x, inplace=True, negative_slope=0.3)
    d = torch.nn.functional.interpolate(x, None, 2, 'nearest', None)
    e = torch.nn.functional.interpolate(x, scale_factor=2, antialias=False)
    g = F.relu(x, True)
    return torch.cat((a, b), dim=1), torch.cat(tensors=[c, d], dim=0), e, g
