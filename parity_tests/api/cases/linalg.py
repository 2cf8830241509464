"""Matrix products and linear algebra (torch.*, Tensor methods, torch.linalg)."""
from ..case import case, api_makers

A = "linalg"
M = {"a": "f32[3,4]", "b": "f32[4,5]"}
B = {"a": "f32[2,3,4]", "b": "f32[2,4,5]"}
# Dot products of 4 terms in float32; relative error stays within a few ulps.
MM = dict(rtol=1e-5, atol=2e-6, why="float32 dot products, summation order differs")
# Factorisations: LAPACK vs Jittor's own kernels; errors scale with the condition number (<30 here).
FACT = dict(rtol=1e-4, atol=1e-4, why="float32 factorisation, condition number < 30")
SPD = "m = a @ a.transpose(-1, -2) + 4 * torch.eye(4)\n"

CASES = [
    case(A, "torch.mm", "out = torch.mm(a, b)", M, **MM),
    case(A, "torch.Tensor.mm", "out = a.mm(b)", M, **MM),
    case(A, "torch.matmul", "out = torch.matmul(a, b)", B, **MM),
    case(A, "torch.matmul", "out = torch.matmul(a, v)", {"a": "f32[2,3,4]", "v": "f32[4]"}, variant="vec", **MM),
    case(A, "torch.Tensor.matmul", "out = a.matmul(b)", M, **MM),
    case(A, "torch.Tensor.__matmul__", "out = a @ b", B, **MM),
    case(A, "torch.bmm", "out = torch.bmm(a, b)", B, **MM),
    case(A, "torch.Tensor.bmm", "out = a.bmm(b)", B, **MM),
    case(A, "torch.mv", "out = torch.mv(a, v)", {"a": "f32[3,4]", "v": "f32[4]"}, **MM),
    case(A, "torch.Tensor.mv", "out = a.mv(v)", {"a": "f32[3,4]", "v": "f32[4]"}, **MM),
    case(A, "torch.dot", "out = torch.dot(u, v)", {"u": "f32[4]", "v": "f32[4]"}, **MM),
    case(A, "torch.Tensor.dot", "out = u.dot(v)", {"u": "f32[4]", "v": "f32[4]"}, **MM),
    case(A, "torch.addmm", "out = torch.addmm(c, a, b)", {"c": "f32[5]", **M}, **MM),
    case(A, "torch.addmm", "out = torch.addmm(c, a, b, beta=0.5, alpha=2.0)", {"c": "f32[3,5]", **M}, variant="beta_alpha", **MM),
    case(A, "torch.addmm", "out = torch.addmm(c, a, b, alpha=0.1, beta=0)", {"c": "f32[3,5]", **M}, variant="beta0", **MM),
    case(A, "torch.Tensor.addmm", "out = c.addmm(a, b, alpha=3)", {"c": "f32[3,5]", **M}, **MM),
    case(A, "torch.addmv", "out = torch.addmv(c, a, v, beta=2)", {"c": "f32[3]", "a": "f32[3,4]", "v": "f32[4]"}, **MM),
    case(A, "torch.addbmm", "out = torch.addbmm(c, a, b)", {"c": "f32[3,5]", **B}, **MM),
    case(A, "torch.baddbmm", "out = torch.baddbmm(c, a, b, beta=0.5, alpha=2)", {"c": "f32[2,3,5]", **B}, **MM),
    case(A, "torch.Tensor.baddbmm", "out = c.baddbmm(a, b)", {"c": "f32[2,3,5]", **B}, **MM),
    case(A, "torch.inverse", SPD + "out = torch.inverse(m)", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.Tensor.inverse", SPD + "out = m.inverse()", {"a": "f32[2,4,4]"}, **FACT),
    case(A, "torch.linalg.inv", SPD + "out = torch.linalg.inv(m)", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.det", SPD + "out = torch.det(m)", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.linalg.det", SPD + "out = torch.linalg.det(m)", {"a": "f32[2,4,4]"}, **FACT),
    case(A, "torch.logdet", SPD + "out = torch.logdet(m)", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.linalg.slogdet", SPD + "s, l = torch.linalg.slogdet(m)", {"a": "f32[4,4]"}, outputs=("s", "l"), **FACT),
    case(A, "torch.svd", "u, s, v = torch.svd(a)\nout = (u * s) @ v.t()", {"a": "f32[5,4]"}, **FACT),
    case(A, "torch.linalg.svd", "u, s, vh = torch.linalg.svd(a, full_matrices=False)\nout = s", {"a": "f32[5,4]"}, **FACT),
    case(A, "torch.linalg.svdvals", "out = torch.linalg.svdvals(a)", {"a": "f32[5,4]"}, **FACT),
    case(A, "torch.linalg.eigh", SPD + "w, v = torch.linalg.eigh(m)\nout = w", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.linalg.cholesky", SPD + "out = torch.linalg.cholesky(m)", {"a": "f32[4,4]"}, **FACT),
    case(A, "torch.linalg.qr", "q, r = torch.linalg.qr(a)\nout = q @ r", {"a": "f32[5,4]"}, **FACT),
    case(A, "torch.linalg.solve", SPD + "out = torch.linalg.solve(m, y)", {"a": "f32[4,4]", "y": "f32[4,2]"}, **FACT),
    case(A, "torch.linalg.pinv", "out = torch.linalg.pinv(a)", {"a": "f32[5,4]"}, **FACT),
    case(A, "torch.linalg.norm", "out = torch.linalg.norm(x)", {"x": "f32[3,4]"}, **MM),
    case(A, "torch.linalg.norm", "out = torch.linalg.norm(x, dim=-1)", {"x": "f32[3,4]"}, variant="dim", **MM),
    case(A, "torch.linalg.norm", "out = torch.linalg.norm(x, ord=1, dim=1, keepdim=True)", {"x": "f32[3,4]"}, variant="ord1", **MM),
    case(A, "torch.linalg.norm", "out = torch.linalg.norm(x, 'fro', dim=(1, 2))", {"x": "f32[2,3,4]"}, variant="fro", **MM),
    case(A, "torch.linalg.norm", "out = torch.linalg.norm(x, float('inf'), dim=(0, 1))", {"x": "f32[3,4]"}, variant="inf_matrix", **MM),
    case(A, "torch.linalg.vector_norm", "out = torch.linalg.vector_norm(x, 3, dim=1)", {"x": "f32[3,4]"}, **MM),
    case(A, "torch.linalg.vector_norm", "out = torch.linalg.vector_norm(x)", {"x": "f32[3,4]"}, variant="full", **MM),
    case(A, "torch.linalg.vector_norm", "out = torch.linalg.vector_norm(x, ord=float('inf'), dim=(0, 1))", {"x": "f32[3,4]"}, variant="inf"),
    case(A, "torch.linalg.matrix_norm", "out = torch.linalg.matrix_norm(x)", {"x": "f32[2,3,4]"}, **MM),
    case(A, "torch.linalg.matrix_norm", "out = torch.linalg.matrix_norm(x, ord=1)", {"x": "f32[2,3,4]"}, variant="ord1", **MM),
    case(A, "torch.linalg.matmul", "out = torch.linalg.matmul(a, b)", M, **MM),
    case(A, "torch.linalg.cross", "out = torch.linalg.cross(a, b)", {"a": "f32[4,3]", "b": "f32[4,3]"}),
    case(A, "torch.linalg.diagonal", "out = torch.linalg.diagonal(x)", {"x": "f32[2,3,3]"}),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
XY45 = {"x": "f32[4,5]", "y": "f32[4,5]"}
SUM30 = dict(rtol=2e-5, atol=2e-6, why="float32 sums/products of <= 30 terms in a different order")
at_torch, on_tensor, in_functional = api_makers(A, X45)

CASES += [
    at_torch("chain_matmul", "out = torch.chain_matmul(x, y.t(), x)", XY45, **SUM30),
    at_torch("matrix_power", "out = torch.matrix_power(x[:, :4] * 0.5, 3)", **SUM30),
    on_tensor("matrix_power", "out = (x[:, :4] * 0.5).matrix_power(0)"),
    at_torch("linalg.matrix_power", "out = torch.linalg.matrix_power(x[:, :4] * 0.5, 2)", **SUM30),
    on_tensor("addr", "out = x.addr(v, w, beta=0.5, alpha=2)", {**X45, "v": "f32[4]", "w": "f32[5]"}),
    on_tensor("addr_", "y = x * 1\ny.addr_(v, w)\nout = y", {**X45, "v": "f32[4]", "w": "f32[5]"}),
    at_torch("addr", "out = torch.addr(x, v, w)", {**X45, "v": "f32[4]", "w": "f32[5]"}),
    on_tensor("addbmm", "out = x.addbmm(b1, b2)", {**X45, "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"}, **SUM30),
    on_tensor("addbmm_", "y = x * 1\ny.addbmm_(b1, b2, alpha=0.5)\nout = y", {**X45, "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"}, **SUM30),
    on_tensor("addmm_", "y = x * 1\ny.addmm_(a, b, beta=2)\nout = y", {**X45, "a": "f32[4,3]", "b": "f32[3,5]"}, **SUM30),
    on_tensor("addmv_", "y = v * 1\ny.addmv_(x, w)\nout = y", {**X45, "v": "f32[4]", "w": "f32[5]"}, **SUM30),
    at_torch("addmv_", "y = v * 1\ntorch.addmv_(y, x, w, alpha=3)\nout = y", {**X45, "v": "f32[4]", "w": "f32[5]"}, **SUM30),
    on_tensor("baddbmm_", "y = b * 1\ny.baddbmm_(b1, b2)\nout = y", {"b": "f32[3,4,5]", "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"},
      **SUM30),
]
