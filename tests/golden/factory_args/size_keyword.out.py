import shims
import jittor as jt


class GraphAttention(shims.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.W = jt.empty(*(n_in, n_out)).start_grad()
        self.a = jt.zeros(*(2 * n_out, 1), dtype=jt.float32).start_grad()


def noise(shape):
    return jt.randn(*shape) + jt.rand(*shape).requires_grad_(True) + jt.ones(*shape)
