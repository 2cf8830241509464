import shims
from shims.nn import Module
from jittor.nn import Linear
from shims.nn import Dropout


class GraphConvolution(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(3, 2)
        self.drop = Dropout(0.5)

    def execute(self, x):
        return self.drop(self.fc(x))


def f(x, ds):
    with shims.checkpoint.safe_globals.safe_globals([dict]):
        y = shims.load("a.pt")
    return x.is_xpu, shims.queries.Size([2, 3]), shims.jit.compile(GraphConvolution()), shims.data.DataLoader(ds, batch_size=2), y
