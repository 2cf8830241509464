"""torch's gradient model: ``backward()``, ``.grad``, ``requires_grad``, hooks, clipping, and the
optimizers stepping from ``.grad`` (shims.autograd's gradient store, converted as written).

Every case computes its gradients itself (``grad=False``: the harness's own gradient check is
not what is tested); the outputs are ``.grad`` values (``None`` where torch's is None), flags,
and weights after optimizer steps.  Weights come from torch (``setup`` modules).
Tolerances: a Linear layer's gradient sums <=6 float32 products per element (rtol 1e-5); a
second-order gradient chains two such passes, and optimizer steps divide by sqrt(v): 1e-4.
"""
from ..case import case

A = "autograd"
X = {"x": "f32[5,4]"}
LIN = "m = nn.Linear(4, 3)"
G = dict(grad=False, setup=LIN)
SECOND = dict(rtol=1e-4, atol=1e-5, why="second-order: two chained float32 backward passes")
STEPS = dict(rtol=1e-4, atol=1e-5, why="optimizer steps on float32 gradients (Adam divides by sqrt(v))")

# NaN/inf made with where/full_like: Jittor compiles with fast math, where x / 0 of a negative x
# can give NaN instead of -inf (measured), so specials are never made by dividing by zero
SPECIAL = ("y = torch.where(x > 1.0, torch.full_like(x, float('inf')), x)\n"
           "y = torch.where(x < -1.0, torch.full_like(x, float('-inf')), y)\n"
           "y = torch.where(x.abs() < 0.2, torch.full_like(x, float('nan')), y)\n")

CASES = [
    # -- Tensor.backward ---------------------------------------------------------------------
    case(A, "torch.Tensor.backward", "out = m(x).tanh().sum()\nout.backward()\n"
         "gw, gb, gx = m.weight.grad, m.bias.grad, x.grad", X, outputs=("gw", "gb", "gx"), **G),
    case(A, "torch.Tensor.backward", "y = m(x)\ny.backward(v)\ngw = m.weight.grad",
         {"x": "f32[5,4]", "v": "f32[5,3]"}, variant="gradient", outputs=("gw",), **G),
    case(A, "torch.Tensor.backward",
         "y = m(x).pow(2).mean()\ny.backward(retain_graph=True)\ng1 = m.weight.grad.clone()\n"
         "held = m.weight.grad\n(y * 3).backward()\ng2 = m.weight.grad",
         X, variant="accumulates_in_place", outputs=("g1", "held", "g2"), **G),
    case(A, "torch.Tensor.backward",
         "x.requires_grad_()\ny = (m(x) ** 2).sum()\ny.backward(inputs=[x])\ngx, gw = x.grad, m.weight.grad",
         X, variant="inputs", outputs=("gx", "gw"), **G),
    case(A, "torch.Tensor.backward",
         "x.requires_grad_()\ny = (m(x) ** 3).sum()\ny.backward(create_graph=True)\ngx = x.grad.detach().clone()\n"
         "z = (x.grad ** 2).sum()\nx.grad = None\nm.weight.grad = None\nm.bias.grad = None\nz.backward()\n"
         "ggw, ggb, ggx = m.weight.grad, m.bias.grad, x.grad",
         X, variant="create_graph_second_order", outputs=("gx", "ggw", "ggb", "ggx"), **G, **SECOND),
    case(A, "torch.autograd.grad",
         "x.requires_grad_()\nout = m(x).tanh().sum()\n(g,) = torch.autograd.grad(out, [x], create_graph=True)\n"
         "pen = g.pow(2).sum()\npen.backward()\ngw, gb, gx = m.weight.grad, m.bias.grad, x.grad",
         X, variant="create_graph_feeds_backward", outputs=("g", "gw", "gb", "gx"), **G, **SECOND),
    case(A, "torch.autograd.backward",
         "y = m(x)\ntorch.autograd.backward([y.sum(), (y ** 2).mean()])\ngw = m.weight.grad",
         X, outputs=("gw",), **G),
    case(A, "torch.autograd.backward",
         "x.requires_grad_()\ny = m(x)\ntorch.autograd.backward(y, grad_tensors=v, inputs=[m.bias, x])\n"
         "gw, gb, gx = m.weight.grad, m.bias.grad, x.grad",
         {"x": "f32[5,4]", "v": "f32[5,3]"}, variant="grad_tensors_inputs", outputs=("gw", "gb", "gx"), **G),
    # -- tensors created with requires_grad=True: leaves of the store ---------------------------
    *[case(A, f"torch.{f}", f"w = torch.{f}({args}, requires_grad=True)\n(x @ w).sum().backward()\n"
           "gw, gx, rg = w.grad, x.grad, w.requires_grad", X, variant="requires_grad", outputs=("gw", "gx", "rg"),
           grad=False)
      for f, args in [("zeros", "4, 3"), ("ones", "(4, 3)"), ("empty", "4, 3"), ("randn", "4, 3"),
                      ("rand", "4, 3"), ("zeros_like", "x.t()[:, :3]"), ("ones_like", "x.t()[:, :3]"),
                      ("randn_like", "x.t()[:, :3]"), ("rand_like", "x.t()[:, :3]"),
                      ("full_like", "x.t()[:, :3], 0.5"), ("tensor", "[[0.5] * 3] * 4")]],
    # -- Tensor.grad ---------------------------------------------------------------------------
    case(A, "torch.Tensor.grad", "x.requires_grad_()\ng0, gx0 = m.weight.grad, x.grad\n"
         "m(x).sum().backward()\ngb, gx = m.bias.grad, x.grad",
         X, variant="none_until_backward", outputs=("g0", "gx0", "gb", "gx"), **G),
    case(A, "torch.Tensor.grad",
         "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n(m(x) ** 2).sum().backward()\n"
         "m.weight.grad.mul_(0.5)\nm.bias.grad.add_(1.0)\nopt.step()\nw, b = m.weight, m.bias",
         X, variant="edit_in_place_then_step", outputs=("w", "b"), **G),
    case(A, "torch.Tensor.grad",
         "opt = torch.optim.Adam(m.parameters(), lr=0.1)\n(m(x) ** 2).sum().backward()\n"
         "m.weight.grad = torch.ones_like(m.weight)\nm.bias.grad = None\nopt.step()\nw, b = m.weight, m.bias",
         X, variant="replace_and_none", outputs=("w", "b"), **G, **STEPS),
    case(A, "torch.Tensor.grad",
         "w = m.weight\nb = m.bias\nfor i in range(3):\n    ((m(x) - i) ** 2).mean().backward()\n"
         "    with torch.no_grad():\n        w -= 0.1 * w.grad\n        b.sub_(0.1 * b.grad)\n"
         "        w.grad.zero_()\n        b.grad.zero_()\nrw, rb = w.requires_grad, b.requires_grad",
         X, variant="manual_sgd_no_grad", outputs=("w", "b", "rw", "rb"), **G, **STEPS),
    # -- requires_grad, is_leaf ----------------------------------------------------------------
    case(A, "torch.Tensor.requires_grad",
         "for p in m.parameters():\n    p.requires_grad = False\nr1 = m(x).requires_grad\n"
         "x.requires_grad_()\nr2 = m(x).requires_grad\nr3 = m.weight.requires_grad",
         X, variant="frozen_module", outputs=("r1", "r2", "r3"), **G),
    case(A, "torch.Tensor.requires_grad",
         "x.requires_grad_()\na = (x * 2).detach().requires_grad\nwith torch.no_grad():\n    b = (x * 2).requires_grad\n"
         "c = (x * 2).requires_grad\nd = x.requires_grad\ne = (x > 0).requires_grad\nf = torch.randn(3).requires_grad",
         X, variant="detach_no_grad_leaves", outputs=("a", "b", "c", "d", "e", "f"), **G),
    case(A, "torch.Tensor.is_leaf",
         "x.requires_grad_()\ny = x * 2\na, b, c, d = x.is_leaf, y.is_leaf, m.weight.is_leaf, y.detach().is_leaf",
         X, outputs=("a", "b", "c", "d"), **G),
    case(A, "torch.Tensor.requires_grad_",
         "x.requires_grad_(True)\n(x ** 2).sum().backward()\ngx = x.grad\ny = x.detach()\ny.requires_grad_()\n"
         "(y * 3).sum().backward()\ngy = y.grad", X, outputs=("gx", "gy"), grad=False),
    case(A, "torch.Tensor.requires_grad_",
         "g = nn.Linear(4, 4)\ng.load_state_dict({'weight': torch.eye(4) * 0.5, 'bias': torch.zeros(4)})\n"
         "m.requires_grad_(False)\nfake = g(x)\nloss_g = m(fake).sum()\nm.requires_grad_(True)\n"
         "loss_g.backward()\ngd, gg = m.weight.grad, g.weight.grad\n"
         "m(fake.detach()).pow(2).sum().backward()\ngd2, gg2 = m.weight.grad, g.weight.grad",
         X, variant="gan_toggle_graph_built_frozen", outputs=("gd", "gg", "gd2", "gg2"), **G),
    # -- hooks, retain_grad --------------------------------------------------------------------
    case(A, "torch.Tensor.register_hook",
         "x.requires_grad_()\nh = x.register_hook(lambda g: g * 3)\n(x ** 2).sum().backward()\n"
         "g1 = x.grad.clone()\nh.remove()\n(x ** 2).sum().backward()\ng2 = x.grad",
         X, variant="leaf_remove", outputs=("g1", "g2"), **G),
    case(A, "torch.Tensor.register_hook",
         "m.weight.register_hook(lambda g: g.clamp(-0.1, 0.1))\n(m(x) ** 2).sum().backward()\n"
         "gw, gb = m.weight.grad, m.bias.grad", X, variant="parameter_clamp", outputs=("gw", "gb"), **G),
    case(A, "torch.Tensor.register_hook",
         "h = m(x)\nh.register_hook(lambda g: g * 0.5)\nh.tanh().sum().backward()\ngw, gb = m.weight.grad, m.bias.grad",
         X, variant="intermediate", outputs=("gw", "gb"), **G),
    case(A, "torch.Tensor.retain_grad",
         "h = m(x)\nh.retain_grad()\n(h ** 2).sum().backward()\ngh, gw = h.grad, m.weight.grad",
         X, outputs=("gh", "gw"), **G),
    # -- nan_to_num, clipping --------------------------------------------------------------------
    case(A, "torch.Tensor.nan_to_num", SPECIAL + "out = y.nan_to_num(nan=0.5, posinf=9.0)", X, grad=False),
    case(A, "torch.Tensor.nan_to_num_",
         "(m(x) ** 2).sum().backward()\ng = m.weight.grad\n"
         "g.copy_(torch.where(g > 0.5, torch.full_like(g, float('inf')), torch.where(g < -0.5, "
         "torch.full_like(g, float('-inf')), g)))\n"
         "m.bias.grad.copy_(torch.where(m.bias.grad < 0, torch.full_like(m.bias.grad, float('nan')), m.bias.grad))\n"
         "for p in m.parameters():\n"
         "    if p.grad is not None:\n        p.grad.nan_to_num_(nan=0, posinf=1e5, neginf=-1e5)\n"
         "gw, gb = m.weight.grad, m.bias.grad", X, outputs=("gw", "gb"), **G),
    case(A, "torch.nan_to_num",
         "(m(x) ** 2).sum().backward()\ng = m.weight.grad\n"
         "g.copy_(torch.where(g > 0.5, torch.full_like(g, float('nan')), g))\nfor p in m.parameters():\n"
         "    torch.nan_to_num(p.grad, nan=0, posinf=1e5, neginf=-1e5, out=p.grad)\n"
         "gw, gb = m.weight.grad, m.bias.grad", X, variant="out_grad_stylegan2", outputs=("gw", "gb"), **G),
    case(A, "torch.nn.utils.clip_grad_value_",
         "(m(x) ** 2).sum().backward()\nnn.utils.clip_grad_value_(m.parameters(), 0.3)\n"
         "gw, gb = m.weight.grad, m.bias.grad", X, outputs=("gw", "gb"), **G),
    case(A, "torch.nn.utils.clip_grad_norm_",
         "(m(x) ** 2).sum().backward()\nt = nn.utils.clip_grad_norm_(m.parameters(), 0.5, 1.0)\n"
         "gw, gb = m.weight.grad, m.bias.grad", X, variant="store_positional_norm_type",
         outputs=("t", "gw", "gb"), **G),
    # -- optimizers from .grad -----------------------------------------------------------------
    case(A, "torch.optim.Optimizer.step",
         "opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)\nfor i in range(3):\n"
         "    (m(x * (i + 1)) ** 2).mean().backward()\n    opt.step()\nw, b, gw = m.weight, m.bias, m.weight.grad",
         X, variant="accumulate_without_zero_grad", outputs=("w", "b", "gw"), **G, **STEPS),
    case(A, "torch.optim.Optimizer.step",
         "opt = torch.optim.Adam(m.parameters(), lr=0.1)\nm.requires_grad_(True)\n(m(x) ** 2).mean().backward()\n"
         "m.requires_grad_(False)\nopt.step()\nw, b, rg = m.weight, m.bias, m.weight.requires_grad",
         X, variant="frozen_after_backward", outputs=("w", "b", "rg"), **G, **STEPS),
    case(A, "torch.optim.Optimizer.zero_grad",
         "opt = torch.optim.Adam(m.parameters(), lr=0.1)\n(m(x) ** 2).mean().backward()\nopt.step()\n"
         "opt.zero_grad(set_to_none=False)\nz = m.weight.grad\nopt.step()\nw, b = m.weight, m.bias",
         X, variant="set_to_none_false_steps_zeros", outputs=("z", "w", "b"), **G, **STEPS),
    case(A, "torch.optim.Optimizer.zero_grad",
         "opt = torch.optim.Adam(m.parameters(), lr=0.1)\n(m(x) ** 2).mean().backward()\nopt.step()\n"
         "opt.zero_grad()\nz = m.weight.grad\nopt.step()\nw, b = m.weight, m.bias",
         X, variant="set_to_none_skips", outputs=("z", "w", "b"), **G, **STEPS),
    case(A, "torch.optim.Optimizer.step",
         "opt = torch.optim.Adam(m.parameters(), lr=0.1)\nfor i in range(3):\n    opt.zero_grad()\n"
         "    (m(x) - i).pow(2).mean().backward()\n    opt.step()\nw, b, gb = m.weight, m.bias, m.bias.grad",
         X, variant="fused", outputs=("w", "b", "gb"), **G, **STEPS),
]
