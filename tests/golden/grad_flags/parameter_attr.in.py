import torch
import torch.nn as nn
from torch.nn.parameter import Parameter


class GraphConvolution(nn.Module):
    # self.weight holds a tensor (nn.Parameter), not a layer: .data writes go to it
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = Parameter(torch.zeros(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.lin = nn.Linear(2, 2)
        self.reset_parameters()

    def reset_parameters(self):
        self.weight.data.mul_(0.5)
        self.bias.data.copy_(self.weight.data.clone()[0])
        self.lin.weight.data.mul_(0.5)
