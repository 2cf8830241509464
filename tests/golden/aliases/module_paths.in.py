import torch
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Linear
from torch.nn.modules.dropout import Dropout
from torch.utils.data.dataloader import DataLoader


class GraphConvolution(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(3, 2)
        self.drop = Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


def f(x, ds):
    with torch.serialization.safe_globals([dict]):
        y = torch.load("a.pt")
    return x.is_xpu, torch.Size([2, 3]), torch.compile(GraphConvolution()), DataLoader(ds, batch_size=2), y
