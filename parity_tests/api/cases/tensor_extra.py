"""Tensor calls of ``porter/mapping/tensor_extra.toml`` (``shims/ops/tensor_extra.py``): varargs
factories, casts, ``broadcast_to``, in-place comparisons, torch-level in-place functions, shape,
index, scan and reduction ops, the transposing attributes."""
from ..case import case

A = "tensor_extra"
X = {"x": "f32[4,5]"}
X3 = {"x": "f32[2,3,4]"}
XY = {"x": "f32[4,5]", "y": "f32[4,5]"}
POS = {"x": "pos[4,5]"}
U11 = {"x": "u11[4,5]"}
SUM = dict(rtol=2e-5, atol=2e-6, why="float32 sums/products of <= 20 terms in a different order")
ULP = dict(rtol=2e-5, atol=2e-6, why="float32 transcendental: a few ulps between libm implementations")


def m(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.Tensor.{name}", src, inputs, variant=variant, **kw)


def t(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.{name}", src, inputs, variant=variant, **kw)


def fn(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.nn.functional.{name}", src, inputs, variant=variant, **kw)


def inplace_fn(name, expr="x", inputs=X, **kw):
    """``torch.<name>(y)`` on a copy: the returned tensor and the updated one."""
    return t(name, f"y = {expr} * 1\nr = torch.{name}(y)\nout = (r, y)", inputs, **kw)


def inplace_m(name, args="", expr="x", inputs=X, **kw):
    return m(name, f"y = {expr} * 1\nr = y.{name}({args})\nout = (r, y)", inputs, **kw)


CASES = [
    # keyword dims (issue 17: transpose(dim0=, dim1=) crashed under Jittor)
    m("transpose", "out = x.transpose(dim0=0, dim1=-1)", variant="keywords"),
    t("transpose", "out = torch.transpose(x, dim0=-1, dim1=0)", variant="keywords"),
    # factories: sizes as varargs, one tuple, torch.Size; dtype
    m("new_zeros", "out = x.new_zeros(2, 3, 4)", grad=False),
    m("new_zeros", "out = x.new_zeros((2, 3)), x.new_zeros(x.shape, dtype=torch.int32)", variant="tuple_dtype", grad=False),
    m("new_ones", "out = x.new_ones(3, 2)", grad=False),
    m("new_ones", "out = x.new_ones([4], dtype=torch.float64)", variant="list_dtype", grad=False),
    m("new_empty", "out = x.new_empty(2, 3).shape", grad=False),
    m("new_full", "out = x.new_full((2, 3), 1.5)", grad=False),
    m("new_tensor", "out = x.new_tensor([[1, 2], [3, 4]])", grad=False),
    # casts
    m("type", "out = (x.type(torch.float64), x.type('torch.IntTensor') * 0 + 1)", grad=False),
    m("type", "out = x.type() == 'torch.FloatTensor'", variant="name", grad=False),
    m("type", "out = x.type(torch.FloatTensor) * 2", variant="tensor_class"),
    m("byte", "out = (x * 10).abs().byte()", grad=False),
    m("char", "out = (x * 10).char()", grad=False),
    m("short", "out = (x * 100).short()", grad=False),
    # broadcasting
    m("broadcast_to", "out = x.broadcast_to((3, 4, 5))"),
    m("broadcast_to", "out = x[:1].broadcast_to((4, -1))", variant="minus_one"),
    t("broadcast_to", "out = torch.broadcast_to(x, (2, 4, 5))"),
    t("broadcast_tensors", "out = torch.broadcast_tensors(x, y[:, :1])", XY),
    t("broadcast_shapes", "out = list(torch.broadcast_shapes((4, 1), (1, 5), (5,)))", {}),
    # shape and index
    m("fliplr", "out = x.fliplr()"), t("fliplr", "out = torch.fliplr(x)", X3),
    m("flipud", "out = x.flipud()"), t("flipud", "out = torch.flipud(x)", X3),
    m("rot90", "out = x.rot90()"), t("rot90", "out = torch.rot90(x, 3, [1, 2])", X3),
    t("rot90", "out = torch.rot90(x, -2)", variant="k_neg2"),
    m("tile", "out = x.tile(2, 1, 3)"), t("tile", "out = torch.tile(x, (2,))"),
    m("ravel", "out = x.ravel()"), t("ravel", "out = torch.ravel(x.t())", variant="transposed"),
    m("select", "out = x.select(1, -2)"), t("select", "out = torch.select(x, 0, 1)", X3),
    m("take", "out = x.take(i)", {**X, "i": "i64<-20,20>[2,3]"}), t("take", "out = torch.take(x, i)", {**X, "i": "i64<0,20>[5]"}),
    m("take_along_dim", "out = x.take_along_dim(i, dim=1)", {**X, "i": "i64<0,5>[4,2]"}),
    t("take_along_dim", "out = torch.take_along_dim(x, x.argsort(dim=0), dim=0)"),
    t("take_along_dim", "out = torch.take_along_dim(x, i)", {**X, "i": "i64<0,20>[6]"}, variant="flat"),
    m("tensor_split", "out = x.tensor_split(3, dim=1)"), t("tensor_split", "out = torch.tensor_split(x, [1, -1])"),
    m("hsplit", "out = x.hsplit([2])"), t("hsplit", "out = torch.hsplit(x[0], 5)"),
    m("vsplit", "out = x.vsplit(2)"), t("vsplit", "out = torch.vsplit(x, [1, 3])"),
    m("dsplit", "out = x.dsplit([1, 3])", X3), t("dsplit", "out = torch.dsplit(x, 2)", X3),
    t("hstack", "out = torch.hstack((x, y))", XY), t("hstack", "out = torch.hstack([x[0], y[1]])", XY, variant="1d"),
    t("vstack", "out = torch.vstack([x, y[0]])", XY), t("row_stack", "out = torch.row_stack((x[0], y[0]))", XY),
    t("dstack", "out = torch.dstack((x, y))", XY), t("column_stack", "out = torch.column_stack((x[0], y.t()))", XY),
    t("atleast_1d", "out = torch.atleast_1d(x[0, 0])"), t("atleast_2d", "out = torch.atleast_2d(x[0])"),
    t("atleast_3d", "out = torch.atleast_3d((x, x[0]))"),
    m("swapdims", "out = x.swapdims(0, 2)", X3), t("swapdims", "out = torch.swapdims(x, -1, 0)", X3),
    m("moveaxis", "out = x.moveaxis(0, -1)", X3), t("moveaxis", "out = torch.moveaxis(x, (0, 1), (2, 0))", X3),
    m("diag_embed", "out = x.diag_embed()"), t("diag_embed", "out = torch.diag_embed(x, offset=1, dim1=0, dim2=2)"),
    m("diagflat", "out = x[:2].diagflat(-1)"), t("diagflat", "out = torch.diagflat(x[0])"),
    t("block_diag", "out = torch.block_diag(x[:2, :3], y[0], y[1:3, :2])", XY),
    t("cartesian_prod", "out = torch.cartesian_prod(x[0, :3], y[0, :2])", XY),
    t("tril_indices", "out = torch.tril_indices(4, 3, offset=-1)", {}, grad=False),
    t("triu_indices", "out = torch.triu_indices(3, 5, 1)", {}, grad=False),
    m("index_add", "out = x.index_add(0, torch.tensor([0, 2, 0]), s, alpha=2.0)", {**X, "s": "f32[3,5]"}),
    t("index_add", "out = torch.index_add(x, 1, torch.tensor([4, 1]), s)", {**X, "s": "f32[4,2]"}),
    m("index_copy", "out = x.index_copy(1, torch.tensor([3, 0]), s)", {**X, "s": "f32[4,2]"}),
    t("index_copy", "out = torch.index_copy(x, 0, torch.tensor([1, 3]), s)", {**X, "s": "f32[2,5]"}),
    m("index_fill", "out = x.index_fill(1, torch.tensor([0, 2]), -1.0)"),
    t("index_fill", "out = torch.index_fill(x, 0, torch.tensor([3]), 7.0)"),
    m("masked_select", "out = x.masked_select(x > 0)"), t("masked_select", "out = torch.masked_select(x, b)", {**X, "b": "bool[5]"}),
    m("unfold", "out = x.unfold(1, 2, 1)"), m("unfold", "out = x.unfold(0, 2, 2)", X3, variant="step"),
    # elementwise
    m("inner", "out = x.inner(y)", XY, **SUM), t("inner", "out = torch.inner(x, y[0])", XY, **SUM),
    m("vdot", "out = x[0].vdot(y[0])", XY, **SUM), t("vdot", "out = torch.vdot(x[1], y[1])", XY, **SUM),
    m("ldexp", "out = x.ldexp(i)", {**X, "i": "i64<-3,4>[4,5]"}), t("ldexp", "out = torch.ldexp(x, torch.tensor(2))"),
    m("logaddexp2", "out = x.logaddexp2(y)", XY, **ULP), t("logaddexp2", "out = torch.logaddexp2(x * 30, y)", XY, **ULP),
    m("heaviside", "out = x.round().heaviside(torch.tensor(0.5))", grad=False),
    t("heaviside", "out = torch.heaviside(x.round(), y)", XY, grad=False),
    m("float_power", "out = x.abs().float_power(2.5)", **ULP), t("float_power", "out = torch.float_power(x, 3)"),
    m("sinc", "out = x.sinc()", **ULP), t("sinc", "out = torch.sinc(torch.cat([x, torch.zeros(1, 5)]))", **ULP),
    m("signbit", "out = x.signbit()"), t("signbit", "out = torch.signbit(x)"),
    m("positive", "out = x.positive()"), t("positive", "out = torch.positive(x)"),
    m("arctan2", "out = x.arctan2(y)", XY, **ULP),
    t("rsub", "out = torch.rsub(x, y, alpha=2)", XY), t("rsub", "out = torch.rsub(x, 1.5)", variant="scalar"),
    t("scalar_tensor", "out = torch.scalar_tensor(2.5)", {}, grad=False),
    t("concatenate", "out = torch.concatenate([x, y], axis=1)", XY),
    # scans and reductions
    m("logcumsumexp", "out = x.logcumsumexp(1)", **ULP), t("logcumsumexp", "out = torch.logcumsumexp(x, dim=0)", **ULP),
    m("cummax", "out = x.cummax(1)"), t("cummax", "out = torch.cummax(x.round(), 0)", variant="ties"),
    m("cummin", "out = x.cummin(dim=0)"), t("cummin", "out = torch.cummin(x, -1)"),
    m("kthvalue", "out = x.kthvalue(2, dim=1)"), m("kthvalue", "out = x.kthvalue(3, 0, keepdim=True)", variant="keepdim"),
    m("msort", "out = x.msort()"), t("msort", "out = torch.msort(x)", X3),
    m("quantile", "out = x.quantile(0.3)"), m("quantile", "out = x.quantile(torch.tensor([0.1, 0.5, 0.9]), dim=1, keepdim=True)",
                                                variant="dim_vector"),
    t("quantile", "out = [torch.quantile(x, 0.4, dim=0, interpolation=i) for i in "
      "('linear', 'lower', 'higher', 'midpoint', 'nearest')]", variant="interpolations"),
    m("nanquantile", "out = x.nanquantile(0.25, dim=1)"),
    t("nanquantile", "y = torch.where(x > 1, torch.full_like(x, float('nan')), x)\nout = torch.nanquantile(y, 0.5, dim=1)"),
    m("nansum", "out = x.nansum(1)"), t("nansum", "out = torch.nansum(torch.where(x > 1, torch.full_like(x, float('nan')), x))"),
    m("nanmean", "out = x.nanmean()"), t("nanmean", "y = torch.where(x > 0.5, torch.full_like(x, float('nan')), x)\n"
                                                   "out = torch.nanmean(y, dim=1, keepdim=True)"),
    m("aminmax", "out = x.aminmax()"), t("aminmax", "out = torch.aminmax(x, dim=1, keepdim=True)"),
    m("argwhere", "out = x.argwhere()", {"x": "bool[4,5]"}), t("argwhere", "out = torch.argwhere(x > 0)"),
    m("bincount", "out = i.bincount()", {"i": "i64<0,6>[20]"}),
    t("bincount", "out = torch.bincount(i, weights=w, minlength=9)", {"i": "i64<0,6>[20]", "w": "f32[20]"}, grad=False),
    m("histc", "out = x.histc(bins=6, min=-1, max=1)"), t("histc", "out = torch.histc(x, 4)"),
    m("diff", "out = x.diff()"), t("diff", "out = torch.diff(x, n=2, dim=0, prepend=y[:1], append=y[1:3])", XY),
    m("cov", "out = x.cov()", **SUM),
    t("cov", "out = torch.cov(x, correction=0, fweights=torch.tensor([1, 2, 1, 3, 1]), aweights=w)", {**X, "w": "pos[5]"},
      variant="weights", **SUM),
    m("corrcoef", "out = x.corrcoef()", **SUM), t("corrcoef", "out = torch.corrcoef(x.t())", **SUM),
    t("trapezoid", "out = torch.trapezoid(x)"), t("trapezoid", "out = torch.trapezoid(x, s, dim=1)",
                                                   {**X, "s": "f32[5]"}, variant="x"),
    t("trapz", "out = torch.trapz(x, dx=0.5)"),
    t("cumulative_trapezoid", "out = torch.cumulative_trapezoid(x, dim=0)"),
    t("vander", "out = torch.vander(x[0], N=4)", grad=False),
    t("vander", "out = torch.vander(x[0], increasing=True)", variant="increasing", grad=False),
    m("renorm", "out = x.renorm(2, 0, 1.0)", **SUM), t("renorm", "out = torch.renorm(x, 1, 1, 2.0)", **SUM),
    # queries
    m("isclose", "out = x.isclose(x + 1e-6 * y)", XY), t("isclose", "out = torch.isclose(x, y, rtol=0.5, atol=0.3)", XY),
    m("allclose", "out = x.allclose(x * (1 + 1e-7))"), t("allclose", "out = torch.allclose(x, y, atol=10)", XY),
    m("is_complex", "out = x.is_complex()"), t("is_complex", "out = torch.is_complex(x)"),
    m("is_floating_point", "out = (x.is_floating_point(), x.long().is_floating_point())"),
    t("is_floating_point", "out = torch.is_floating_point(x.double())"),
    m("is_signed", "out = (x.is_signed(), x.byte().is_signed())"), t("is_signed", "out = torch.is_signed(x.int())"),
    m("is_nonzero", "out = x[0, :1].is_nonzero()"), t("is_nonzero", "out = torch.is_nonzero(torch.tensor([0.0]))", {}),
    m("is_same_size", "out = (x.is_same_size(y), x.is_same_size(y[0]))", XY),
    t("is_same_size", "out = torch.is_same_size(x, y)", XY),
    m("is_conj", "out = x.is_conj()"), t("is_conj", "out = torch.is_conj(x)"),
    m("is_neg", "out = x.is_neg()"), t("is_neg", "out = torch.is_neg(x)"),
    t("numel", "out = torch.numel(x)", X3), m("nelement", "out = x.nelement()", X3),
    m("ndimension", "out = x.ndimension()", X3), m("element_size", "out = (x.element_size(), x.double().element_size())"),
    m("is_contiguous", "out = x.is_contiguous()"),
    m("real", "out = x.real * 2"),
    t("real", "out = torch.real(x)"),
    m("conj", "out = x.conj()"), t("conj", "out = torch.conj(x)"),
    m("resolve_conj", "out = x.resolve_conj()"), t("resolve_conj", "out = torch.resolve_conj(x)"),
    m("resolve_neg", "out = x.resolve_neg()"), t("resolve_neg", "out = torch.resolve_neg(x)"),
    m("angle", "out = x.angle()"), t("angle", "out = torch.angle(x)"),
    m("fill_diagonal_", "y = x * 1\ny.fill_diagonal_(2.0)\nout = y", grad=False),
    m("fill_diagonal_", "y = torch.zeros(7, 3)\ny.fill_diagonal_(1.0, wrap=True)\nout = y", {}, variant="wrap", grad=False),
    m("unique_consecutive", "out = i.unique_consecutive(return_inverse=True, return_counts=True)", {"i": "i64<0,3>[12]"}),
    t("unique_consecutive", "out = torch.unique_consecutive(i)", {"i": "i64<0,2>[3,4]"}),
    # in-place tensor methods
    inplace_m("clamp_min_", "-0.5"), inplace_m("clamp_max_", "max=0.3"),
    m("squeeze_", "y = x[:1] * 1\ny.squeeze_(0)\nout = y"), m("unsqueeze_", "y = x * 1\ny.unsqueeze_(1)\nout = y"),
    # resize_ (awd-lstm-lm's dropout mask: x.new().resize_((n, 1)).bernoulli_(p)): the leading
    # elements kept; torch refuses to resize a tensor that requires grad
    m("resize_", "y = x.detach() * 1\ny.resize_((3, 2))\nout = y", grad=False, variant="shrink"),
    m("resize_", "y = x.detach()[:2] * 1\ny.resize_(2, 5)\nout = y", grad=False),
    m("resize_as_", "y = x.detach() * 1\ny.resize_as_(s)\nout = y", {**X, "s": "f32[5,2]"}, grad=False),
    m("t_", "y = x * 1\ny.t_()\nout = y"), m("transpose_", "y = x * 1\ny.transpose_(0, 1)\nout = y"),
    m("swapdims_", "y = x * 1\ny.swapdims_(0, 1)\nout = y"), m("swapaxes_", "y = x * 1\ny.swapaxes_(1, 0)\nout = y"),
    inplace_m("tril_", "1"), inplace_m("triu_", "diagonal=-1"),
    m("index_add_", "y = x * 1\ny.index_add_(0, torch.tensor([1, 1]), s)\nout = y", {**X, "s": "f32[2,5]"}),
    m("index_copy_", "y = x * 1\ny.index_copy_(1, torch.tensor([0]), s)\nout = y", {**X, "s": "f32[4,1]"}),
    m("index_fill_", "y = x * 1\ny.index_fill_(0, torch.tensor([0, 3]), 0.5)\nout = y"),
    inplace_m("cumsum_", "1"), inplace_m("cumprod_", "dim=0"),
    m("nan_to_num_", "y = torch.where(x > 1, torch.full_like(x, float('nan')), x)\ny.nan_to_num_(nan=2.0)\nout = y"),
    inplace_m("float_power_", "2", expr="x.double()"), inplace_m("ldexp_", "torch.tensor(3)"),
    inplace_m("sinc_", **ULP), inplace_m("heaviside_", "torch.tensor(0.0)", expr="x.round()", grad=False),
    inplace_m("arctan2_", "x.flip(0)", **ULP), inplace_m("renorm_", "2, 1, 0.5", **SUM),
    inplace_m("logical_and_", "x > 0"), inplace_m("logical_or_", "x < -1"), inplace_m("logical_xor_", "x > 0.5"),
    m("detach_", "y = x * 2\ny.detach_()\nout = y", grad=False),
    inplace_m("eq_", "x.round()", expr="x.round()", grad=False), inplace_m("ne_", "0.5", grad=False),
    inplace_m("lt_", "0", grad=False), inplace_m("le_", "x.flip(1)", grad=False),
    inplace_m("gt_", "torch.zeros(5)", grad=False), inplace_m("ge_", "0.1", grad=False),
    inplace_m("greater_", "0", grad=False), inplace_m("greater_equal_", "-0.2", grad=False),
    inplace_m("less_", "x.t().t()", grad=False), inplace_m("less_equal_", "0.3", grad=False),
    inplace_m("not_equal_", "x.round()", expr="x.round()", grad=False),
    m("bitwise_and_", "y = i * 1\ny.bitwise_and_(j)\nout = y", {"i": "i32<0,16>[6]", "j": "i32<0,16>[6]"}),
    m("bitwise_or_", "y = i * 1\ny.bitwise_or_(j)\nout = y", {"i": "i32<0,16>[6]", "j": "i32<0,16>[6]"}),
    m("bitwise_xor_", "y = i * 1\ny.bitwise_xor_(j)\nout = y", {"i": "i32<0,16>[6]", "j": "i32<0,16>[6]"}),
    m("bitwise_not_", "y = i * 1\ny.bitwise_not_()\nout = y", {"i": "i32<-8,8>[6]"}),
    m("bitwise_not", "out = (i.bitwise_not(), b.bitwise_not())", {"i": "i32<-8,8>[6]", "b": "bool[6]"}),
    t("bitwise_not", "out = torch.bitwise_not(i)", {"i": "i64<-8,8>[6]"}),
    # existing shims newly reachable as methods
    m("count_nonzero", "out = (x.round().count_nonzero(), x.round().count_nonzero(dim=1))"),
    m("trace", "out = x.trace()"), m("kron", "out = x[:2, :2].kron(y[:2, :3])", XY),
    m("dist", "out = x.dist(y, p=3)", XY, **SUM), m("logdet", "out = (x[:4, :4] @ x[:4, :4].t() + torch.eye(4)).logdet()", **SUM),
    m("median", "out = x.median(dim=1)"), m("nan_to_num", "out = x.log().nan_to_num(nan=-1.0)", **ULP),
    m("prelu", "out = x.prelu(torch.tensor([0.25]))"), m("hardshrink", "out = x.hardshrink(0.7)"),
    m("softmax", "out = x.softmax(1)"), m("softmax", "out = x.softmax(dim=0, dtype=torch.float64)", variant="dtype"),
    m("log_softmax", "out = x.log_softmax(-1)", **ULP),
    m("unique", "out = i.unique(return_counts=True)", {"i": "i64<0,5>[20]"}),
    m("addmv", "out = v.addmv(x, w, beta=0.5, alpha=2)", {**X, "v": "f32[4]", "w": "f32[5]"}, **SUM),
    # torch-level in-place functions
    *[inplace_fn(n, inputs=U11, **ULP) for n in ("acos_", "arccos_", "asin_", "arcsin_")],
    # torch has no derivative for the in-place inverse hyperbolics: forward only
    *[inplace_fn(n, inputs=U11, grad=False, **ULP) for n in ("atanh_", "arctanh_", "asinh_", "arcsinh_")],
    *[inplace_fn(n, "x.abs() + 1", grad=False, **ULP) for n in ("acosh_", "arccosh_")],
    *[inplace_fn(n, **ULP) for n in ("atan_", "arctan_", "cos_", "cosh_", "erfc_", "exp2_",
                                     "exp_", "expm1_", "sin_", "sinh_", "tan_", "tanh_", "sigmoid_", "erf_", "sinc_")],
    *[inplace_fn(n) for n in ("ceil_", "fix_", "floor_", "frac_", "neg_", "negative_", "relu_", "round_", "square_",
                              "trunc_", "abs_", "deg2rad_", "rad2deg_", "zero_", "detach_")],
    *[inplace_fn(n, inputs=POS, **ULP) for n in ("log10_", "log1p_", "log_", "reciprocal_", "sqrt_", "rsqrt_", "log2_")],
    t("logit_", "y = x * 1\nr = torch.logit_(y, eps=0.1)\nout = (r, y)", {"x": "u01[4,5]"}, **ULP),
    t("clamp_", "y = x * 1\nr = torch.clamp_(y, -0.5, 0.5)\nout = (r, y)"),
    t("clip_", "y = x * 1\nr = torch.clip_(y, min=0.0)\nout = (r, y)"),
    t("clamp_min_", "y = x * 1\nr = torch.clamp_min_(y, 0.2)\nout = (r, y)"),
    t("clamp_max_", "y = x * 1\nr = torch.clamp_max_(y, -0.2)\nout = (r, y)"),
    t("clamp_min", "out = torch.clamp_min(x, y)", XY), t("clamp_max", "out = torch.clamp_max(x, 0.1)"),
    t("xlogy_", "y = x.abs() * 1\nr = torch.xlogy_(y, z)\nout = (r, y)", {"x": "f32[4,5]", "z": "pos[4,5]"}, **ULP),
    t("fill_", "y = x * 1\nr = torch.fill_(y, 2.5)\nout = (r, y)"),
    t("selu_", "y = x * 1\nr = torch.selu_(y)\nout = (r, y)", **ULP),
    t("celu_", "y = x * 1\nr = torch.celu_(y, alpha=0.5)\nout = (r, y)", **ULP),
    t("threshold_", "y = x * 1\nr = torch.threshold_(y, 0.1, -2.0)\nout = (r, y)"),
    t("nan_to_num_", "y = x.log()\nr = torch.nan_to_num_(y, nan=0.5)\nout = (r, y)", **ULP),
    t("ldexp_", "y = x * 1\nr = torch.ldexp_(y, torch.tensor(-2))\nout = (r, y)"),
    *[fn(n, f"y = x * 1\nr = F.{n}(y)\nout = (r, y)", **ULP) for n in ("relu_", "elu_", "selu_", "celu_")],
    fn("leaky_relu_", "y = x * 1\nr = F.leaky_relu_(y, 0.3)\nout = (r, y)"),
    fn("hardtanh_", "y = x * 1\nr = F.hardtanh_(y, -0.5, 0.5)\nout = (r, y)"),
    fn("threshold_", "y = x * 1\nr = F.threshold_(y, 0.0, 1.0)\nout = (r, y)"),
    # transposing attributes and dtype
    m("T", "out = x.T", X3), m("mT", "out = x.mT", X3), m("H", "out = x.H"), m("mH", "out = x.mH", X3),
    m("dtype", "out = (x.dtype == torch.float32, x.int().dtype == torch.int32, x.double().dtype)"),
    # out= keywords: the result is written into the out tensor (shims.out_)
    t("add", "z = torch.empty(4, 5)\nr = torch.add(x, y, alpha=2, out=z)\nout = (r, z)", XY, variant="out", grad=False),
    t("cat", "z = torch.zeros(1)\ntorch.cat([x, y], 1, out=z)\nout = z", XY, variant="out", grad=False),
    t("max", "v = torch.empty(0)\ni = torch.empty(0, dtype=torch.long)\ntorch.max(x, 1, out=(v, i))\nout = (v, i)",
      variant="out_tuple", grad=False),
    t("zeros", "z = torch.ones(2, dtype=torch.float64)\ntorch.zeros(3, 2, out=z)\nout = z", {}, variant="out", grad=False),
    t("matmul", "z = torch.empty(4, 4)\nalias = z\ntorch.matmul(x, y.t(), out=z)\nout = alias", XY, variant="out",
      grad=False, **SUM),
    # complex: marked
    t("view_as_complex", "out = torch.view_as_complex(x)", {"x": "f32[3,2]"}, expect_unsupported=True,
      why="Jittor has no complex dtype"),
    t("complex", "out = torch.complex(x, y)", XY, expect_unsupported=True, why="Jittor has no complex dtype"),
]
