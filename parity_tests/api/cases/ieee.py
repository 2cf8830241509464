"""IEEE arithmetic as torch computes it (issue 30): infinities, NaNs, signed zeros, denormals and
correctly rounded division.

Jittor compiles its kernels with ``-Ofast`` unless told otherwise (finite math, reciprocal
division, denormals flushed): ``1/0`` gave NaN, ``2/1`` gave 1.9999999 and ``isinf`` never fired.
``porter/machine/env.py`` now sets ``cc_flags=-O2`` so kernels compile without fast math; these cases pin
that, each value compared exactly where torch's result is exact (``rtol=0, atol=0``), with NaN
and infinity positions and signs compared as they are everywhere in the suite.
"""
from ..case import case

A = "ieee"
#: every special float32: signed zeros, ±1, an exact quotient, ±inf, NaN, denormals, near max
SPECIAL = ("s = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, float('inf'), float('-inf'), float('nan'), "
           "1e-40, -1e-40, 3.0e38, 1.5e-38])\n")
#: divisors: +0, -0 and ones, so each special value meets each kind of zero
ZEROS = "z = torch.tensor([0.0, -0.0, 0.0, 0.0, 1.0, 0.0, -0.0, 0.0, 0.0, 0.0, 1.0, 0.0])\n"
EXACT = dict(rtol=0.0, atol=0.0)
NOGRAD = dict(grad=False, **EXACT)
#: a quotient's gradient is a product of quotients computed in another order on each side (1 ulp
#: apart): the correctly-rounded cases compare the forward exactly; pointwise.py has the gradients
ROUNDED = NOGRAD
#: torch's vectorised float32 sqrt is not correctly rounded at 3e38 (1.7320508815820456e19, numpy
#: and the port 1.7320507716308828e19): one float32 ulp
ULP = dict(grad=False, rtol=2.0 ** -23, atol=0.0)
X = {"x": "f32[64]", "y": "pos[64]"}


def t(name, src, inputs=None, variant="", **kw):
    return case(A, f"torch.{name}", src, inputs or {}, variant=variant, **kw)


def m(name, src, inputs=None, variant="", **kw):
    return case(A, f"torch.Tensor.{name}", src, inputs or {}, variant=variant, **kw)


CASES = [
    # -- division: by zero (both signs), of infinities, correctly rounded --------------------------
    m("__truediv__", SPECIAL + ZEROS + "out = s / z", variant="by_signed_zero", **NOGRAD),
    m("__truediv__", SPECIAL + "out = s / 0.0", variant="by_python_zero", **NOGRAD),
    m("__rtruediv__", SPECIAL + "out = 1.0 / s", variant="reciprocal_of_specials", **NOGRAD),
    m("__truediv__", SPECIAL + "out = s / s", variant="self", **NOGRAD),
    m("__truediv__", "out = x / y", X, variant="correctly_rounded", **ROUNDED),
    m("__truediv__", "out = x / 3.0", X, variant="by_python_float_correctly_rounded", **ROUNDED),
    t("div", "out = torch.div(x, y)", X, variant="correctly_rounded", **ROUNDED),
    t("true_divide", "out = torch.true_divide(x, y)", X, variant="correctly_rounded", **ROUNDED),
    m("div_", "w = x * 1.0\nw.div_(y)\nout = w", X, variant="correctly_rounded", **ROUNDED),
    t("div", SPECIAL + ZEROS + "out = torch.div(s, z)", variant="by_signed_zero", **NOGRAD),
    t("reciprocal", SPECIAL + "out = torch.reciprocal(s)", variant="specials", **NOGRAD),
    t("reciprocal", "out = torch.reciprocal(y)", X, variant="correctly_rounded", **ROUNDED),
    # -- infinity and NaN propagation ---------------------------------------------------------------
    m("__mul__", SPECIAL + "out = (s * 0.0, s * float('inf'), s * -1.0)", variant="specials", **NOGRAD),
    m("__add__", SPECIAL + "out = (s + float('inf'), s - float('inf'), s + s)", variant="specials", **NOGRAD),
    t("exp", "out = torch.exp(torch.tensor([1000.0, -1000.0, float('inf'), float('-inf'), float('nan')]))",
      variant="overflow", **NOGRAD),
    t("log", SPECIAL + "out = torch.log(s)", variant="specials", **NOGRAD),
    t("sqrt", SPECIAL + "out = torch.sqrt(s)", variant="specials", **ULP),
    t("clamp", SPECIAL + "out = torch.clamp(s, -1.0, 1.0)", variant="specials", **NOGRAD),
    t("clamp", "out = torch.clamp(x, min=float('-inf'), max=float('inf'))", X, variant="infinite_bounds", **EXACT),
    t("maximum", SPECIAL + "out = torch.maximum(s, torch.zeros(12))", variant="specials", **NOGRAD),
    t("minimum", SPECIAL + "out = torch.minimum(s, torch.zeros(12))", variant="specials", **NOGRAD),
    t("where", SPECIAL + "out = torch.where(s > 1.0, s, -s)", variant="specials", **NOGRAD),
    # -- the guards research code writes on top ---------------------------------------------------
    t("isinf", SPECIAL + ZEROS + "out = (torch.isinf(s), torch.isinf(s / z))", variant="specials", **NOGRAD),
    m("isinf", SPECIAL + "out = s.isinf()", variant="specials", **NOGRAD),
    t("isposinf", SPECIAL + "out = torch.isposinf(s / 0.0)", variant="specials", **NOGRAD),
    t("isneginf", SPECIAL + "out = torch.isneginf(s / 0.0)", variant="specials", **NOGRAD),
    t("isnan", SPECIAL + ZEROS + "out = (torch.isnan(s), torch.isnan(s / z))", variant="specials", **NOGRAD),
    t("isfinite", SPECIAL + ZEROS + "out = (torch.isfinite(s), torch.isfinite(s / z))", variant="specials",
      **NOGRAD),
    m("isfinite", SPECIAL + "out = (s / 0.0).isfinite().all()", variant="guard", **NOGRAD),
    t("nan_to_num", SPECIAL + ZEROS + "out = torch.nan_to_num(s / z)", variant="defaults", **NOGRAD),
    t("nan_to_num", SPECIAL + ZEROS + "out = torch.nan_to_num(s / z, nan=0.0, posinf=1e5, neginf=-1e5)",
      variant="given", **NOGRAD),
    m("__eq__", SPECIAL + "out = (s == float('inf'), s == float('-inf'), s == s, s != s)", variant="specials",
      **NOGRAD),
    m("__gt__", SPECIAL + "out = (s > 3.0e38, s < float('-inf'), s >= 0.0)", variant="specials", **NOGRAD),
    t("where", SPECIAL + "out = torch.where(torch.isinf(s), torch.zeros_like(s), s)", variant="inf_guard",
      **NOGRAD),
    # masked softmax: the attention idiom, exp(-inf) = 0
    t("softmax", "out = torch.softmax(x.view(8, 8).masked_fill(torch.eye(8) > 0, float('-inf')), -1)", X,
      variant="minus_inf_mask", grad=False),
    # -- signed zeros: only their reciprocals tell them apart --------------------------------------
    m("__mul__", SPECIAL + "out = 1.0 / (s * 0.0)", variant="signed_zero_product", **NOGRAD),
    m("__neg__", "out = 1.0 / -torch.zeros(3)", variant="signed_zero", **NOGRAD),
    t("abs", "out = 1.0 / torch.abs(-torch.zeros(3))", variant="signed_zero", **NOGRAD),
    # -- denormals: kept, not flushed to zero -------------------------------------------------------
    m("__mul__", SPECIAL + "out = s * 1e30", variant="denormal_kept", **NOGRAD),
    m("__add__", "d = torch.tensor([1e-40, -3e-42, 1.4e-45])\nout = (d + 0.0) * 1e38", variant="denormal_kept",
      **NOGRAD),
    m("__truediv__", "out = torch.tensor([1e-30, 3e-35]) / 1e10", variant="denormal_result", **NOGRAD),
]
