import torch
import torch.nn.functional as F


def calls(x, y, idx):
    a = x.new_zeros(2, 3, 4)
    b = x.new_ones(x.shape)
    c = x.transpose(dim0=0, dim1=1)
    d = F.log_softmax(x)
    e = F.softmax(x, dim=-1)
    f = x.type(torch.float64)
    g = x.type()
    h = (x * 255).byte()
    i = x.broadcast_to((3, -1, -1))
    j = y.clone()
    j.lt_(0.5)
    k = torch.add(x, y, out=j)
    m = torch.tile(x, (2, 1))
    n = x.T @ y.mT
    o = torch.take_along_dim(x, idx, dim=1)
    p = x.index_add(0, idx[:, 0], y)
    q = torch.quantile(x, 0.5, dim=1)
    return a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q


def complex_stays_marked(x):
    z = torch.view_as_complex(x)
    return z.real, torch.complex64
