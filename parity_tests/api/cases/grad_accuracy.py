"""Accuracy of long sums, forward and backward, judged against float64 (``ref64``).

Every gradient that sums over a broadcast (a bias, a per-channel scale, a normalisation's
mean), a convolution's or a linear layer's weight and bias gradient, and every forward
reduction, sums many float32 terms.  torch sums them in blocks; Jittor's CPU kernels one
after another, whose error grows with the count.  These cases use realistic sizes (at least
2^20 terms per summed element where the op allows it) and pass only when the port's float32
error, against torch's own float64 result, is within ``ACCURACY_FACTOR`` x torch's float32
error: a wide rtol/atol cannot hide a port 30x noisier than torch.

Big inputs are never differentiated (``const``): only the small gradients are stored.  The
snippets are dtype-generic (the torch side reruns them in float64).
"""
from ..case import case

A = "grad_accuracy"
BIG = "f32[4,2,512,512]"  # 2^20 terms per channel
ROWS = "f32[1048576,2]"
LONG = "f32[1048576]"
ACC = dict(ref64=True, rtol=1e-4, atol=1e-4, why="sums of 2^20 float32 terms: judged against float64")

CASES = [
    case(A, "torch.add", "y = x + b.view(1, -1, 1, 1)\nout = (y * y).sum()",
         {"x": BIG, "b": "f32[2]"}, variant="bias_broadcast", const=("x",), **ACC),
    case(A, "torch.add", "y = torch.add(x, b.view(1, -1, 1, 1))\nout = (y * x.flip(3)).sum()",
         {"x": BIG, "b": "f32[2]"}, variant="function_broadcast", const=("x",), **ACC),
    case(A, "torch.sub", "y = x - b.view(-1, 1, 1)\nout = (y * y).sum()",
         {"x": "f32[2,1024,512]", "b": "f32[2]"}, variant="broadcast", const=("x",), **ACC),
    case(A, "torch.mul", "y = x * g.view(1, -1, 1, 1)\nout = (y * x.flip(3)).sum()",
         {"x": BIG, "g": "f32[2]"}, variant="scale_broadcast", const=("x",), **ACC),
    case(A, "torch.div", "y = x / g.view(1, -1, 1, 1)\nout = (y * x.flip(3)).sum()",
         {"x": BIG, "g": "pos[2]"}, variant="broadcast", const=("x",), **ACC),
    case(A, "torch.Tensor.expand_as", "y = x * b.view(1, -1, 1, 1).expand_as(x)\nout = (y * x.flip(3)).sum()",
         {"x": BIG, "b": "f32[2]"}, variant="broadcast_grad", const=("x",), **ACC),
    case(A, "torch.Tensor.expand", "y = x * b.view(1, 2, 1, 1).expand(4, 2, 512, 512)\nout = (y * x.flip(3)).sum()",
         {"x": BIG, "b": "f32[2]"}, variant="broadcast_grad", const=("x",), **ACC),
    case(A, "torch.sum", "out = x.sum()", {"x": LONG}, variant="long", **ACC),
    case(A, "torch.sum", "out = x.sum((0, 2, 3))", {"x": BIG}, variant="long_dims", const=("x",), **ACC),
    case(A, "torch.mean", "out = torch.mean(x, dim=(0, 2, 3))", {"x": BIG}, variant="long_dims", const=("x",), **ACC),
    case(A, "torch.var", "out = torch.var(x)", {"x": LONG}, variant="long", **ACC),
    case(A, "torch.std", "out = torch.std(x)", {"x": LONG}, variant="long", **ACC),
    case(A, "torch.norm", "out = torch.norm(x)", {"x": LONG}, variant="long", **ACC),
    case(A, "torch.nn.functional.mse_loss", "out = F.mse_loss(x + b, t)",
         {"x": LONG, "t": LONG, "b": "f32[1]"}, variant="long_bias", const=("x", "t"), **ACC),
    case(A, "torch.nn.functional.linear", "y = F.linear(x, w, b)\nout = (y * y).sum()",
         {"x": ROWS, "w": "f32[2,2]", "b": "f32[2]"}, variant="long_rows", const=("x",), **ACC),
    case(A, "torch.nn.Linear", "y = lin(x)\nout = (y * x.flip(0)).sum()", {"x": ROWS},
         setup="lin = nn.Linear(2, 2)", variant="long_rows", const=("x",), **ACC),
    case(A, "torch.nn.functional.conv2d", "y = F.conv2d(x, w, b, padding=1)\nout = (y * y).sum()",
         {"x": "f32[1,1,1024,1024]", "w": "f32[2,1,3,3]", "b": "f32[2]"}, variant="long_bias_weight",
         const=("x",), **ACC),
    case(A, "torch.nn.Conv2d", "y = conv(x)\nout = (y * y).sum()", {"x": "f32[1,1,1024,1024]"},
         setup="conv = nn.Conv2d(1, 2, 3, padding=1)", variant="long_module", const=("x",), **ACC),
    case(A, "torch.nn.functional.conv1d", "y = F.conv1d(x, w, b, padding=1)\nout = (y * y).sum()",
         {"x": "f32[1,1,1048576]", "w": "f32[2,1,3]", "b": "f32[2]"}, variant="long_bias_weight",
         const=("x",), **ACC),
    case(A, "torch.nn.functional.conv_transpose2d", "y = F.conv_transpose2d(x, w, b)\nout = (y * y).sum()",
         {"x": "f32[1,1,1024,1024]", "w": "f32[1,2,3,3]", "b": "f32[2]"}, variant="long_bias_weight",
         const=("x",), **ACC),
    case(A, "torch.nn.InstanceNorm2d", "y = inorm(x)\nout = (y * x.flip(3)).sum()", {"x": "f32[1,2,1024,1024]"},
         setup="inorm = nn.InstanceNorm2d(2, affine=True)\nnn.init.normal_(inorm.weight)\nnn.init.normal_(inorm.bias)",
         variant="long_affine", const=("x",), **ACC),
    case(A, "torch.nn.functional.batch_norm", "y = F.batch_norm(x, None, None, w, b, training=True)\n"
         "out = (y * x.flip(3)).sum()", {"x": BIG, "w": "f32[2]", "b": "f32[2]"}, variant="long_affine",
         const=("x",), **ACC),
    case(A, "torch.nn.BatchNorm2d", "y = bn(x)\nout = (y * x.flip(3)).sum()", {"x": BIG},
         setup="bn = nn.BatchNorm2d(2)\nnn.init.normal_(bn.weight)\nnn.init.normal_(bn.bias)",
         variant="long_affine", const=("x",), **ACC),
    case(A, "torch.nn.GroupNorm", "y = gn(x)\nout = (y * x.flip(3)).sum()", {"x": BIG},
         setup="gn = nn.GroupNorm(2, 2)\nnn.init.normal_(gn.weight)\nnn.init.normal_(gn.bias)",
         variant="long_affine", const=("x",), **ACC),
    case(A, "torch.nn.LayerNorm", "y = ln(x)\nout = (y * x.flip(0)).sum()", {"x": "f32[1048576,4]"},
         setup="ln = nn.LayerNorm(4)\nnn.init.normal_(ln.weight)\nnn.init.normal_(ln.bias)",
         variant="long_affine", const=("x",), **ACC),
]
