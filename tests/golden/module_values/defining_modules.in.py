import torch
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Linear
import torch.nn.modules.conv as conv


class GraphConvolution(Module):
    """torch's classes spelled through the submodule that defines them are the public names."""

    def __init__(self, shape):
        super().__init__()
        self.lin = Linear(3, 4)
        self.conv = conv.Conv2d(3, 4, 3)
        # star arguments hide the call's arguments: the policy is applied when the call runs
        self.zeros = torch.zeros(*shape)
        self.noise = torch.randn(2, *shape)
