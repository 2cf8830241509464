"""Pointwise ops: ``torch.X(x)``, ``x.X()`` and in-place ``y.X_()``, unary and binary."""
from ..case import case, api_makers

A = "pointwise"
X = "f32[4,5]"

#: unary op -> input kind (domain where torch's op is finite and differentiable)
UNARY = {
    "abs": "f32", "neg": "f32", "negative": "f32", "exp": "f32", "log": "pos", "log2": "pos",
    "log10": "pos", "log1p": "pos", "expm1": "f32", "sqrt": "pos", "rsqrt": "pos", "sin": "f32",
    "cos": "f32", "tan": "u11", "asin": "u11", "acos": "u11", "atan": "f32", "sinh": "f32",
    "cosh": "f32", "tanh": "f32", "asinh": "f32", "acosh": "gt1", "atanh": "u11",
    "sigmoid": "f32", "relu": "f32", "floor": "f32", "ceil": "f32", "round": "f32",
    "trunc": "f32", "frac": "f32", "sign": "f32", "erf": "f32", "erfinv": "u11", "exp2": "f32",
    "reciprocal": "pos", "square": "f32", "deg2rad": "f32", "rad2deg": "f32", "sgn": "f32",
    "logit": "u01", "arcsin": "u11", "arccos": "u11", "arctan": "f32", "arcsinh": "f32",
    "arccosh": "gt1", "arctanh": "u11", "fix": "f32", "absolute": "f32", "erfc": "f32",
}
#: torch implements no derivative for these in-place ops (or for the op at all)
NO_INPLACE_GRAD = {"acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh"}
NO_GRAD = {"floor_divide"}

# Transcendental ops differ by a few ulps between libm implementations.
ULP = dict(rtol=2e-5, atol=2e-6, why="float32 transcendental: a few ulps between libm implementations")

CASES = []
for op, kind in UNARY.items():
    spec = f"{kind}[4,5]"
    CASES.append(case(A, f"torch.{op}", f"out = torch.{op}(x)", {"x": spec}, **ULP))
    CASES.append(case(A, f"torch.Tensor.{op}", f"out = x.{op}()", {"x": spec}, **ULP))
    CASES.append(case(A, f"torch.Tensor.{op}_", f"y = x * 1.0\ny.{op}_()\nout = y", {"x": spec},
                      grad=op not in NO_INPLACE_GRAD, **ULP))

# binary op -> (input kinds, keyword forms to also cover)
BINARY = {
    "add": ("f32", "f32"), "sub": ("f32", "f32"), "mul": ("f32", "f32"), "div": ("f32", "pos"),
    "true_divide": ("f32", "pos"), "pow": ("pos", "f32"), "maximum": ("f32", "f32"),
    "minimum": ("f32", "f32"), "atan2": ("f32", "f32"), "remainder": ("f32", "pos"),
    "fmod": ("f32", "pos"), "floor_divide": ("f32", "pos"), "hypot": ("f32", "f32"),
    "logaddexp": ("f32", "f32"), "xlogy": ("f32", "pos"), "subtract": ("f32", "f32"),
    "multiply": ("f32", "f32"), "divide": ("f32", "pos"), "fmax": ("f32", "f32"),
    "fmin": ("f32", "f32"), "copysign": ("f32", "f32"),
}
NO_INPLACE_BIN = {"maximum", "minimum", "logaddexp", "fmax", "fmin"}
for op, (k1, k2) in BINARY.items():
    ins = {"x": f"{k1}[4,5]", "y": f"{k2}[4,5]"}
    g = op not in NO_GRAD
    CASES.append(case(A, f"torch.{op}", f"out = torch.{op}(x, y)", ins, grad=g, **ULP))
    CASES.append(case(A, f"torch.Tensor.{op}", f"out = x.{op}(y)", ins, grad=g, **ULP))
    if op not in NO_INPLACE_BIN:
        CASES.append(case(A, f"torch.Tensor.{op}_", f"z = x * 1.0\nz.{op}_(y)\nout = z", ins, grad=g, **ULP))

# call forms users write: scalars, keywords, broadcasting
CASES += [
    case(A, "torch.add", "out = torch.add(x, y, alpha=0.5)", {"x": X, "y": X}, variant="alpha"),
    case(A, "torch.add", "out = torch.add(x, 2.0)", {"x": X}, variant="scalar"),
    case(A, "torch.Tensor.add", "out = x.add(y, alpha=-2)", {"x": X, "y": "f32[5]"}, variant="alpha_bcast"),
    case(A, "torch.Tensor.add_", "z = x * 1.0\nz.add_(y, alpha=0.3)\nout = z", {"x": X, "y": X}, variant="alpha"),
    case(A, "torch.Tensor.copy_", "z = x * 1.0\nz.copy_(y * 2.0)\nout = z", {"x": X, "y": "f32[5]"}, variant="bcast"),
    case(A, "torch.sub", "out = torch.sub(x, y, alpha=3)", {"x": X, "y": X}, variant="alpha"),
    case(A, "torch.mul", "out = torch.mul(x, 3)", {"x": X}, variant="scalar"),
    case(A, "torch.pow", "out = torch.pow(x, 2)", {"x": X}, variant="int_exp"),
    case(A, "torch.Tensor.pow", "out = x.pow(0.5)", {"x": "pos[4,5]"}, variant="float_exp", **ULP),
    case(A, "torch.div", "out = torch.div(x, y, rounding_mode='floor')", {"x": X, "y": "pos[4,5]"}, variant="floor"),
    case(A, "torch.div", "out = torch.div(x, y, rounding_mode='trunc')", {"x": X, "y": "pos[4,5]"}, variant="trunc"),
    case(A, "torch.div", "out = torch.div(a, 2)", {"a": "i64<-9,9>[6]"}, variant="int_true_div"),
    case(A, "torch.maximum", "out = torch.maximum(x, y)", {"x": X, "y": "f32[1,5]"}, variant="bcast"),
]

# one-ulp steps, the same bits on both sides: atol 0, so that an unchanged x fails
STEP = dict(rtol=1e-6, atol=0.0, grad=False, why="nextafter: one ulp; the relative step is itself ~1e-7")
CASES += [
    case(A, "torch.nextafter", "out = (torch.nextafter(x, y) - x) / x.abs()", {"x": X, "y": X}, **STEP),
    case(A, "torch.nextafter", "out = torch.nextafter(torch.ones(3), torch.tensor([2.0, 0.0, 1.0])) - 1.0",
         variant="from_one", **STEP),
    case(A, "torch.Tensor.nextafter", "out = (x.nextafter(y) - x) / x.abs()", {"x": X, "y": "f32[5]"}, **STEP),
]

COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"]
for op in COMPARE:
    ins = {"x": "i64<0,3>[4,5]", "y": "i64<0,3>[4,5]"}
    CASES.append(case(A, f"torch.{op}", f"out = torch.{op}(x, y)", ins))
    CASES.append(case(A, f"torch.Tensor.{op}", f"out = x.{op}(y)", ins))
CASES.append(case(A, "torch.eq", "out = torch.eq(x, 1.0)", {"x": "f32[4,5]"}, variant="scalar"))

LOGICAL = ["logical_and", "logical_or", "logical_xor"]
for op in LOGICAL:
    ins = {"a": "bool[4,5]", "b": "bool[4,5]"}
    CASES.append(case(A, f"torch.{op}", f"out = torch.{op}(a, b)", ins))
    CASES.append(case(A, f"torch.Tensor.{op}", f"out = a.{op}(b)", ins))
CASES.append(case(A, "torch.logical_not", "out = torch.logical_not(a)", {"a": "bool[4,5]"}))
CASES.append(case(A, "torch.Tensor.logical_not", "out = a.logical_not()", {"a": "bool[4,5]"}))
for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    ins = {"a": "i32<0,16>[4,5]", "b": "i32<0,16>[4,5]"}
    CASES.append(case(A, f"torch.{op}", f"out = torch.{op}(a, b)", ins))
    CASES.append(case(A, f"torch.Tensor.{op}", f"out = a.{op}(b)", ins))
CASES.append(case(A, "torch.bitwise_not", "out = torch.bitwise_not(a)", {"a": "i32<0,16>[4,5]"}))

# clamp: the call forms (Jittor names them min_v/max_v)
CASES += [
    case(A, "torch.clamp", "out = torch.clamp(x, -0.5, 0.5)", {"x": X}),
    case(A, "torch.clamp", "out = torch.clamp(x, min=0.0)", {"x": X}, variant="min_kw"),
    case(A, "torch.clamp", "out = torch.clamp(x, max=0.2, min=-0.1)", {"x": X}, variant="reordered_kw"),
    case(A, "torch.clip", "out = torch.clip(x, -0.5, 0.5)", {"x": X}),
    case(A, "torch.Tensor.clamp", "out = x.clamp(min=-0.3)", {"x": X}),
    case(A, "torch.Tensor.clamp", "out = x.clamp(-0.3, 0.3)", {"x": X}, variant="positional"),
    case(A, "torch.Tensor.clip", "out = x.clip(max=0.1)", {"x": X}),
    case(A, "torch.Tensor.clamp_", "y = x * 1.0\ny.clamp_(min=0.0, max=1.0)\nout = y", {"x": X}),
    case(A, "torch.Tensor.clamp_min", "out = x.clamp_min(0.1)", {"x": X}),
    case(A, "torch.Tensor.clamp_max", "out = x.clamp_max(0.1)", {"x": X}),
    case(A, "torch.lerp", "out = torch.lerp(x, y, 0.3)", {"x": X, "y": X}),
    case(A, "torch.lerp", "out = torch.lerp(x, y, w)", {"x": X, "y": X, "w": "u01[4,5]"}, variant="tensor_weight"),
    case(A, "torch.Tensor.lerp", "out = x.lerp(y, 0.7)", {"x": X, "y": X}),
    case(A, "torch.Tensor.lerp_", "z = x * 1.0\nz.lerp_(y, 0.25)\nout = z", {"x": X, "y": X}),
    case(A, "torch.addcmul", "out = torch.addcmul(x, y, z, value=0.5)", {"x": X, "y": X, "z": X}),
    case(A, "torch.addcmul", "out = torch.addcmul(x, y, z)", {"x": X, "y": X, "z": X}, variant="default"),
    case(A, "torch.Tensor.addcmul", "out = x.addcmul(y, z, value=2)", {"x": X, "y": X, "z": X}),
    case(A, "torch.Tensor.addcmul_", "w = x * 1.0\nw.addcmul_(y, z, value=-1)\nout = w", {"x": X, "y": X, "z": X}),
    case(A, "torch.addcdiv", "out = torch.addcdiv(x, y, z, value=0.1)", {"x": X, "y": X, "z": "pos[4,5]"}),
    case(A, "torch.Tensor.addcdiv", "out = x.addcdiv(y, z)", {"x": X, "y": X, "z": "pos[4,5]"}),
    case(A, "torch.Tensor.addcdiv_", "w = x * 1.0\nw.addcdiv_(y, z, value=3)\nout = w", {"x": X, "y": X, "z": "pos[4,5]"}),
    case(A, "torch.where", "out = torch.where(c, x, y)", {"c": "bool[4,5]", "x": X, "y": X}),
    case(A, "torch.where", "out = torch.where(x > 0, x, 0.0)", {"x": X}, variant="scalar_other"),
    case(A, "torch.where", "out = torch.where(c)", {"c": "bool[4,5]"}, variant="one_arg"),
    case(A, "torch.Tensor.where", "out = x.where(c, y)", {"c": "bool[4,5]", "x": X, "y": X}),
    case(A, "torch.nan_to_num", "out = torch.nan_to_num(x / y, nan=0.0, posinf=1.0, neginf=-1.0)",
         {"x": "f32[6]", "y": "f32[6]"}),
    case(A, "torch.isnan", "out = torch.isnan(torch.log(x))", {"x": X}),
    case(A, "torch.isinf", "out = torch.isinf(x / (x > 0).float())", {"x": X}),
    case(A, "torch.isfinite", "out = torch.isfinite(x / (x > 0).float())", {"x": X}),
    case(A, "torch.Tensor.isnan", "out = x.log().isnan()", {"x": X}),
    case(A, "torch.sigmoid", "out = torch.sigmoid(x * 50)", {"x": X}, variant="saturated"),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
NOGRAD = dict(grad=False)
at_torch, on_tensor, in_functional = api_makers(A, X45)

CASES += [
    at_torch("pi", "out = x * torch.pi"), at_torch("e", "out = x * torch.e"),
    at_torch("inf", "out = (torch.clamp(x, max=torch.inf), torch.full((2,), -torch.inf))", **NOGRAD),
    at_torch("nan", "out = torch.full((2,), torch.nan)", {}), at_torch("newaxis", "out = x[:, torch.newaxis]"),
    at_torch("isin", "out = torch.isin(i, torch.tensor([1, 3, 5]))", {"i": "i64<0,6>[10]"}),
    at_torch("isin", "out = torch.isin(i, j, invert=True)", {"i": "i64<0,6>[10]", "j": "i64<0,6>[3]"}, variant="invert"),
    at_torch("isreal", "out = torch.isreal(x)"), on_tensor("isreal", "out = x.isreal()"),
    at_torch("bitwise_left_shift", "out = torch.bitwise_left_shift(i, j)", {"i": "i32<-20,20>[6]", "j": "i32<0,4>[6]"}),
    on_tensor("bitwise_left_shift", "out = i.bitwise_left_shift(2)", {"i": "i64<-20,20>[6]"}),
    on_tensor("bitwise_left_shift_", "y = i * 1\ny.bitwise_left_shift_(1)\nout = y", {"i": "i32<-20,20>[6]"}),
    at_torch("bitwise_right_shift", "out = torch.bitwise_right_shift(i, j)", {"i": "i32<-40,40>[6]", "j": "i32<0,4>[6]"}),
    on_tensor("bitwise_right_shift", "out = i.bitwise_right_shift(1)", {"i": "i64<-40,40>[6]"}),
    on_tensor("bitwise_right_shift_", "y = i * 1\ny.bitwise_right_shift_(2)\nout = y", {"i": "i32<-40,40>[6]"}),
    at_torch("digamma", "out = torch.digamma(x.abs() + 0.5)", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    on_tensor("digamma", "out = (x.abs() + 0.2).digamma()", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    on_tensor("digamma_", "y = x.abs() + 1\ny.digamma_()\nout = y", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    at_torch("lgamma", "out = torch.lgamma(x.abs() + 0.5)", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    on_tensor("lgamma", "out = (x * 3).lgamma()", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    on_tensor("lgamma_", "y = x.abs() + 2\ny.lgamma_()\nout = y", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    on_tensor("logical_not_", "y = x * 1\ny.logical_not_()\nout = y", **NOGRAD),
]
