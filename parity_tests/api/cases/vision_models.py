"""torchvision.models builders: built in ``setup`` (torch's ``state_dict`` loaded by key into the
converted model, so the keys must be torchvision's), run in eval mode on one small image,
output and gradients w.r.t. the input and every parameter compared.  Only the models whose
``state_dict`` is small enough for the shared case archive (VGG and AlexNet carry 60-140 M
parameters): those rows, the weights enums and the layout of every builder are proven by
``parity_tests/test_vision_models.py``."""
from ..case import case

A = "vision_models"
# 18-121 layers of float32 convolutions summing up to 4,608 products each, in another order than
# torch's: parity_tests/test_vision_models.py measures at most 4.2e-6 of a tensor's largest
# magnitude; outputs here are O(1), so 1e-4 (an absolute floor of 1e-4) has a wide margin.
TOL = dict(rtol=1e-4, atol=1e-4, why="float32 convolution stacks (18-60 layers) summed in Jittor's order")


def model(name, size, **kw):
    return case(A, f"torchvision.models.{name}", "out = m(x)", {"x": f"f32[1,3,{size},{size}]"},
                setup=f"m = torchvision.models.{name}().eval()", extra_prelude="import torchvision\n",
                **{**TOL, **kw})


CASES = [
    model("resnet18", 32),
    model("squeezenet1_1", 64),
    model("mobilenet_v2", 32),
    model("densenet121", 32),
]
