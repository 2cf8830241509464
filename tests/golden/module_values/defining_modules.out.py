import shims
from shims.nn import Module
from jittor.nn import Linear


class GraphConvolution(Module):
    """torch's classes spelled through the submodule that defines them are the public names."""

    def __init__(self, shape):
        super().__init__()
        self.lin = Linear(3, 4)
        self.conv = shims.nn.Conv2d(3, 4, 3)
        # star arguments hide the call's arguments: the policy is applied when the call runs
        self.set_tensor_attr("zeros", shims.namespace("torch").zeros(*shape))
        self.set_tensor_attr("noise", shims.namespace("torch").randn(2, *shape))
