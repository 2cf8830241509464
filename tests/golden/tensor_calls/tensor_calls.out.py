import shims
import jittor as jt
torch = shims.unported("torch")


def calls(x, y, idx):
    a = shims.new_zeros(x, 2, 3, 4)
    b = shims.new_ones(x, x.shape)
    c = shims.transpose(x, dim0=0, dim1=1)
    d = shims.nn.log_softmax(x)
    e = shims.nn.softmax(x, dim=-1)
    f = shims.tensor_type(x, jt.float64)
    g = shims.tensor_type(x)
    h = shims.byte((x * 255))
    i = shims.broadcast_to(x, (3, -1, -1))
    j = y.clone()
    shims.lt_(j, 0.5)
    k = shims.out_(j, shims.add(x, y))
    m = shims.tile(x, (2, 1))
    n = x.T @ y.mT
    o = shims.take_along_dim(x, idx, dim=1)
    p = shims.index_add(x, 0, idx[:, 0], y)
    q = shims.quantile(x, 0.5, dim=1)
    return a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q


def complex_stays_marked(x):
    z = torch.view_as_complex(x)  # jtport: JT001 torch.view_as_complex: Jittor has no complex dtype: complex tensors cannot be ported (marked, never passed to Jittor)
    return z.real, torch.complex64  # jtport: JT001 torch.complex64: Jittor has no complex dtype: complex tensors cannot be ported (marked, never passed to Jittor)
