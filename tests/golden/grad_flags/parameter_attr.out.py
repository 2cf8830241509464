import shims
import jittor as jt
from jittor import nn


class GraphConvolution(shims.nn.Module):
    # self.weight holds a tensor (nn.Parameter), not a layer: .data writes go to it
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = jt.zeros(in_features, out_features).start_grad()
        self.bias = jt.zeros(out_features).start_grad()
        self.lin = nn.Linear(2, 2)
        self.reset_parameters()

    def reset_parameters(self):
        self.weight.mul_(0.5)
        self.bias.assign(shims.views.detach_view(self.weight).clone()[0])
        self.lin.weight.mul_(0.5)
