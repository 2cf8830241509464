"""Reductions and scans: the dim forms (int, tuple, keyword), keepdim, dtypes, full reductions.

Torch's full reductions are 0-d; Jittor has no 0-d Vars, so ports give shape (1,).  The
harness compares a 0-d torch result with a (1,) Jittor one as a scalar and reports it.
"""
from ..case import case, api_makers

A = "reduce"
X = "f32[3,4,5]"
# Sums of 60 float32 terms: rounding grows with the number of terms and order of summation.
SUM = dict(rtol=1e-5, atol=1e-5, why="float32 sum of up to 60 terms in a different order")

CASES = [
    case(A, "torch.sum", "out = torch.sum(x)", {"x": X}, **SUM),
    case(A, "torch.sum", "out = torch.sum(x, dim=(0, 2), keepdim=True)", {"x": X}, variant="tuple_kw", **SUM),
    case(A, "torch.sum", "out = torch.sum(x, 1)", {"x": X}, variant="positional", **SUM),
    case(A, "torch.sum", "out = torch.sum(b)", {"b": "bool[3,4]"}, variant="bool_int64"),
    case(A, "torch.sum", "out = torch.sum(u)", {"u": "u8<200,255>[40]"}, variant="uint8_no_overflow"),
    case(A, "torch.Tensor.sum", "out = x.sum(-1)", {"x": X}, **SUM),
    case(A, "torch.Tensor.sum", "out = x.sum(dim=[0, 1])", {"x": X}, variant="list_kw", **SUM),
    case(A, "torch.Tensor.sum", "out = x.sum(2, keepdim=True)", {"x": X}, variant="keepdim", **SUM),
    case(A, "torch.Tensor.sum", "out = i.sum(0)", {"i": "i32<0,100>[3,4]"}, variant="int32_to_int64"),
    case(A, "torch.mean", "out = torch.mean(x)", {"x": X}, **SUM),
    case(A, "torch.mean", "out = torch.mean(x, dim=(1, 2))", {"x": X}, variant="tuple_kw", **SUM),
    case(A, "torch.mean", "out = torch.mean(x, [0, 2], True)", {"x": X}, variant="list_keepdim", **SUM),
    case(A, "torch.Tensor.mean", "out = x.mean(dim=-1, keepdim=True)", {"x": X}, **SUM),
    case(A, "torch.Tensor.mean", "out = x.mean()", {"x": X}, variant="full", **SUM),
    case(A, "torch.prod", "out = torch.prod(x, 1)", {"x": "pos[3,4]"}, **SUM),
    case(A, "torch.prod", "out = torch.prod(x)", {"x": "pos[3,4]"}, variant="full", **SUM),
    case(A, "torch.Tensor.prod", "out = x.prod(dim=0, keepdim=True)", {"x": "pos[3,4]"}, **SUM),
    case(A, "torch.var", "out = torch.var(x, 1)", {"x": X}, **SUM),
    case(A, "torch.var", "out = torch.var(x, dim=(0, 2), keepdim=True)", {"x": X}, variant="tuple_keepdim", **SUM),
    case(A, "torch.var", "out = torch.var(x, unbiased=False)", {"x": X}, variant="biased_full", **SUM),
    case(A, "torch.var", "out = torch.var(x, 2, correction=0)", {"x": X}, variant="correction", **SUM),
    case(A, "torch.var", "out = torch.var(x * 0 + 3.0, 1)", {"x": X}, variant="constant_no_clamp"),
    case(A, "torch.Tensor.var", "out = x.var(dim=2)", {"x": X}, **SUM),
    case(A, "torch.Tensor.var", "out = x.var(-1, keepdim=True, unbiased=True)", {"x": X}, variant="kw", **SUM),
    case(A, "torch.Tensor.var", "out = x.var()", {"x": X}, variant="full", **SUM),
    case(A, "torch.std", "out = torch.std(x, dim=-1, keepdim=True)", {"x": X}, **SUM),
    case(A, "torch.std", "out = torch.std(x, (1, 2))", {"x": X}, variant="tuple", **SUM),
    case(A, "torch.std", "out = torch.std(x * 0 + 1.0, 0)", {"x": X}, variant="constant_no_clamp", grad=False),
    case(A, "torch.Tensor.std", "out = x.std(dim=-1, keepdim=True)", {"x": X}, **SUM),
    case(A, "torch.Tensor.std", "out = x.std(1, unbiased=False)", {"x": X}, variant="biased", **SUM),
    case(A, "torch.var_mean", "v, m = torch.var_mean(x, dim=1, keepdim=True)", {"x": X}, outputs=("v", "m"), **SUM),
    case(A, "torch.std_mean", "s, m = torch.std_mean(x, (0, 2))", {"x": X}, outputs=("s", "m"), **SUM),
    case(A, "torch.logsumexp", "out = torch.logsumexp(x, 1)", {"x": X}, **SUM),
    case(A, "torch.logsumexp", "out = torch.logsumexp(x * 1000, dim=-1, keepdim=True)", {"x": X},
         variant="large", rtol=1e-5, atol=1e-3, why="values ~1e3: float32 ulp is 6e-5"),
    case(A, "torch.Tensor.logsumexp", "out = x.logsumexp(dim=(0, 1))", {"x": X}, **SUM),
    case(A, "torch.amax", "out = torch.amax(x, dim=(0, 2))", {"x": X}),
    case(A, "torch.amin", "out = torch.amin(x, 1, keepdim=True)", {"x": X}),
    case(A, "torch.Tensor.amax", "out = x.amax(-1)", {"x": X}),
    case(A, "torch.Tensor.amin", "out = x.amin(dim=0)", {"x": X}),
    case(A, "torch.max", "out = torch.max(x)", {"x": X}),
    case(A, "torch.max", "v, i = torch.max(x, 1)", {"x": X}, variant="dim", outputs=("v", "i")),
    case(A, "torch.max", "r = torch.max(x, dim=-1, keepdim=True)\nv = r.values\ni = r.indices", {"x": X},
         variant="named", outputs=("v", "i")),
    case(A, "torch.max", "out = torch.max(x, y)", {"x": X, "y": X}, variant="binary"),
    case(A, "torch.min", "out = torch.min(x)", {"x": X}),
    case(A, "torch.min", "v, i = torch.min(x, dim=2)", {"x": X}, variant="dim", outputs=("v", "i")),
    case(A, "torch.Tensor.max", "out = x.max()", {"x": X}),
    case(A, "torch.Tensor.max", "v, i = x.max(1)", {"x": X}, variant="dim", outputs=("v", "i")),
    case(A, "torch.Tensor.max", "out = x.max(dim=0)[0]", {"x": X}, variant="index0"),
    case(A, "torch.Tensor.min", "v, i = x.min(dim=-1, keepdim=True)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.argmax", "out = torch.argmax(x)", {"x": X}),
    case(A, "torch.argmax", "out = torch.argmax(x, dim=1, keepdim=True)", {"x": X}, variant="dim"),
    case(A, "torch.argmin", "out = torch.argmin(x, 2)", {"x": X}),
    case(A, "torch.Tensor.argmax", "out = x.argmax(-1)", {"x": X}),
    case(A, "torch.Tensor.argmin", "out = x.argmin()", {"x": X}),
    case(A, "torch.norm", "out = torch.norm(x)", {"x": X}, **SUM),
    case(A, "torch.norm", "out = torch.norm(x, p=1, dim=1)", {"x": X}, variant="p1", **SUM),
    case(A, "torch.norm", "out = torch.norm(x, p=3, dim=-1, keepdim=True)", {"x": X}, variant="p3", **SUM),
    # out as torch's 5th positional: the result is written into it (was passed to the shim's dtype)
    case(A, "torch.norm", "out = torch.empty(3, 5)\ntorch.norm(x, 2, 1, False, out)", {"x": X},
         variant="out_positional", grad=False, **SUM),
    case(A, "torch.norm", "out = torch.norm(x, float('inf'), dim=0)", {"x": X}, variant="inf"),
    case(A, "torch.norm", "out = torch.norm(x, p='fro', dim=(1, 2))", {"x": X}, variant="fro", **SUM),
    case(A, "torch.Tensor.norm", "out = x.norm()", {"x": X}, **SUM),
    case(A, "torch.Tensor.norm", "out = x.norm(dim=1, keepdim=True)", {"x": X}, variant="dim", **SUM),
    case(A, "torch.Tensor.norm", "out = x.norm(2, -1)", {"x": X}, variant="positional", **SUM),
    case(A, "torch.cumsum", "out = torch.cumsum(x, dim=1)", {"x": X}, **SUM),
    case(A, "torch.Tensor.cumsum", "out = x.cumsum(-1)", {"x": X}, **SUM),
    case(A, "torch.cumprod", "out = torch.cumprod(x, 1)", {"x": X}, **SUM),
    case(A, "torch.Tensor.cumprod", "out = x.cumprod(dim=-1)", {"x": X}, **SUM),
    case(A, "torch.all", "out = torch.all(b)", {"b": "bool[3,4]"}),
    case(A, "torch.all", "out = torch.all(b, dim=1)", {"b": "bool[3,4]"}, variant="dim"),
    case(A, "torch.any", "out = torch.any(b)", {"b": "bool[3,4]"}),
    case(A, "torch.any", "out = torch.any(x > 1, 0)", {"x": X}, variant="dim"),
    case(A, "torch.Tensor.all", "out = (x > -3).all()", {"x": X}),
    case(A, "torch.Tensor.any", "out = (x > 2).any(dim=-1)", {"x": X}),
    case(A, "torch.count_nonzero", "out = torch.count_nonzero(x > 0, dim=1)", {"x": X}),
    case(A, "torch.sort", "v, i = torch.sort(x, dim=1)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.sort", "v, i = torch.sort(x, descending=True)", {"x": X}, variant="descending", outputs=("v", "i")),
    case(A, "torch.Tensor.sort", "v, i = x.sort(-1)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.argsort", "out = torch.argsort(x, dim=1)", {"x": X}),
    case(A, "torch.argsort", "out = torch.argsort(x, dim=-1, descending=True)", {"x": X}, variant="descending"),
    case(A, "torch.Tensor.argsort", "out = x.argsort()", {"x": X}),
    case(A, "torch.topk", "v, i = torch.topk(x, 2)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.topk", "v, i = torch.topk(x, k=2, dim=1, largest=False)", {"x": X}, variant="smallest", outputs=("v", "i")),
    case(A, "torch.Tensor.topk", "v, i = x.topk(3, dim=0)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.median", "v, i = torch.median(x, dim=1)", {"x": "f32[3,5,4]"}, outputs=("v", "i")),
    case(A, "torch.kthvalue", "v, i = torch.kthvalue(x, 2, dim=1)", {"x": X}, outputs=("v", "i")),
    case(A, "torch.Tensor.sum_to_size", "out = x.sum_to_size(1, 4, 1)", {"x": X}, **SUM),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
at_torch, on_tensor, in_functional = api_makers(A, X45)

CASES += [
    at_torch("nanmedian", "y = torch.where(x > 1, torch.full_like(x, float('nan')), x)\nout = torch.nanmedian(y)"),
    on_tensor("nanmedian", "y = torch.where(x > 0.5, torch.full_like(x, float('nan')), x)\nout = y.nanmedian(dim=1)"),
]
