"""Batch 2 of ``porter/mapping/tensor_extra.toml``: constants, dtype promotion, windows,
scatter-like ops, random fills (statistics), torch-level aliases of functional ops, and the
layers of ``shims/nn/layers.py`` batch 2 (RMSNorm, RReLU, LPPool, ConvTranspose1d, ...)."""
from ..case import case

A = "tensor_extra2"
X = {"x": "f32[4,5]"}
XY = {"x": "f32[4,5]", "y": "f32[4,5]"}
IMG = {"x": "f32[2,4,6,6]"}
SEQ = {"x": "f32[2,4,7]"}
SUM = dict(rtol=2e-5, atol=2e-6, why="float32 sums/products of <= 30 terms in a different order")
ULP = dict(rtol=2e-5, atol=2e-6, why="float32 transcendental: a few ulps between libm implementations")
CONV = dict(rtol=1e-4, atol=1e-5, why="float32 sums of <= 72 products in a different order")
NOGRAD = dict(grad=False)


def t(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.{name}", src, inputs, variant=variant, **kw)


def m(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.Tensor.{name}", src, inputs, variant=variant, **kw)


def f(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.nn.functional.{name}", src, inputs, variant=variant, **kw)


def layer(name, ctor, inputs=IMG, variant="", call="out = m(x)", **kw):
    return case(A, f"torch.nn.{name}", call, inputs, variant=variant, setup=f"m = nn.{ctor}", **kw)


def stats(expr, mean, std, tol):
    return (f"y = {expr}\nout = (abs(y.float().mean().item() - {mean}) < {tol}, "
            f"abs(y.float().std().item() - {std}) < {tol})")


CASES = [
    # constants
    t("pi", "out = x * torch.pi"), t("e", "out = x * torch.e"),
    t("inf", "out = (torch.clamp(x, max=torch.inf), torch.full((2,), -torch.inf))", **NOGRAD),
    t("nan", "out = torch.full((2,), torch.nan)", {}), t("newaxis", "out = x[:, torch.newaxis]"),
    # dtype promotion (checked through the dtype of a tensor made with the result)
    t("promote_types", "out = (torch.zeros(2, dtype=torch.promote_types(torch.int32, torch.float16)), "
      "torch.zeros(2, dtype=torch.promote_types(torch.uint8, torch.int8)))", {}),
    t("result_type", "out = (torch.zeros(1, dtype=torch.result_type(i, 2.5)), torch.zeros(1, dtype=torch.result_type(x, 2)), "
      "torch.zeros(1, dtype=torch.result_type(i, x)))", {**X, "i": "i32<0,5>[3]"}),
    t("can_cast", "out = (torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float64), "
      "torch.can_cast(torch.bool, torch.uint8))", {}),
    # windows
    t("hann_window", "out = (torch.hann_window(8), torch.hann_window(5, periodic=False), torch.hann_window(1))", {},
      **ULP),
    t("hamming_window", "out = torch.hamming_window(7, True, alpha=0.5, beta=0.4)", {}, **ULP),
    t("blackman_window", "out = torch.blackman_window(9, False)", {}, rtol=2e-5, atol=1e-6,
      why="float32 rounding of the float64 formula (values near 0)"),
    t("bartlett_window", "out = torch.bartlett_window(6)", {}),
    t("kaiser_window", "out = torch.kaiser_window(8, True, 5.0)", {}, **ULP),
    # indices and combinations
    t("unravel_index", "out = torch.unravel_index(i, (3, 4, 5))", {"i": "i64<0,60>[7]"}),
    t("combinations", "out = torch.combinations(x[0], r=2)"),
    t("combinations", "out = torch.combinations(x[0, :3], 3, with_replacement=True)", variant="replacement"),
    t("chain_matmul", "out = torch.chain_matmul(x, y.t(), x)", XY, **SUM),
    t("matrix_power", "out = torch.matrix_power(x[:, :4] * 0.5, 3)", **SUM),
    m("matrix_power", "out = (x[:, :4] * 0.5).matrix_power(0)"),
    t("linalg.matrix_power", "out = torch.linalg.matrix_power(x[:, :4] * 0.5, 2)", **SUM),
    t("isin", "out = torch.isin(i, torch.tensor([1, 3, 5]))", {"i": "i64<0,6>[10]"}),
    t("isin", "out = torch.isin(i, j, invert=True)", {"i": "i64<0,6>[10]", "j": "i64<0,6>[3]"}, variant="invert"),
    t("isreal", "out = torch.isreal(x)"), m("isreal", "out = x.isreal()"),
    t("nanmedian", "y = torch.where(x > 1, torch.full_like(x, float('nan')), x)\nout = torch.nanmedian(y)"),
    m("nanmedian", "y = torch.where(x > 0.5, torch.full_like(x, float('nan')), x)\nout = y.nanmedian(dim=1)"),
    t("pdist", "out = torch.pdist(x)", **SUM), f("pdist", "out = F.pdist(x, p=1)", **SUM),
    # shifts, splits
    t("bitwise_left_shift", "out = torch.bitwise_left_shift(i, j)", {"i": "i32<-20,20>[6]", "j": "i32<0,4>[6]"}),
    m("bitwise_left_shift", "out = i.bitwise_left_shift(2)", {"i": "i64<-20,20>[6]"}),
    m("bitwise_left_shift_", "y = i * 1\ny.bitwise_left_shift_(1)\nout = y", {"i": "i32<-20,20>[6]"}),
    t("bitwise_right_shift", "out = torch.bitwise_right_shift(i, j)", {"i": "i32<-40,40>[6]", "j": "i32<0,4>[6]"}),
    m("bitwise_right_shift", "out = i.bitwise_right_shift(1)", {"i": "i64<-40,40>[6]"}),
    m("bitwise_right_shift_", "y = i * 1\ny.bitwise_right_shift_(2)\nout = y", {"i": "i32<-40,40>[6]"}),
    m("split_with_sizes", "out = x.split_with_sizes([1, 3], dim=0)"),
    t("split_with_sizes", "out = torch.split_with_sizes(x, [2, 3], 1)"),
    t("unsafe_split", "out = torch.unsafe_split(x, 2, dim=1)"), m("unsafe_split", "out = x.unsafe_split(3)"),
    t("unsafe_chunk", "out = torch.unsafe_chunk(x, 3, 1)"), m("unsafe_chunk", "out = x.unsafe_chunk(2)"),
    # scatter-like
    t("select_scatter", "out = torch.select_scatter(x, s, 1, 2)", {**X, "s": "f32[4]"}),
    m("select_scatter", "out = x.select_scatter(s, 0, -1)", {**X, "s": "f32[5]"}),
    t("slice_scatter", "out = torch.slice_scatter(x, s, dim=1, start=1, step=2)", {**X, "s": "f32[4,2]"}),
    m("slice_scatter", "out = x.slice_scatter(s, 0, 1, 3)", {**X, "s": "f32[2,5]"}),
    t("diagonal_scatter", "out = torch.diagonal_scatter(x, s, 1)", {**X, "s": "f32[4]"}),
    m("diagonal_scatter", "out = x.diagonal_scatter(s, -1)", {**X, "s": "f32[3]"}),
    m("masked_scatter", "out = x.masked_scatter(x > 0, s)", {**X, "s": "f32[20]"}),
    m("masked_scatter_", "y = x * 1\ny.masked_scatter_(b, s)\nout = y", {**X, "b": "bool[5]", "s": "f32[20]"}),
    t("masked_scatter", "out = torch.masked_scatter(x, x < 0, s)", {**X, "s": "f32[25]"}),
    m("index_put", "out = x.index_put((torch.tensor([0, 2]), torch.tensor([1, 4])), v)", {**X, "v": "f32[2]"}),
    m("index_put_", "y = x * 1\ny.index_put_((torch.tensor([0, 0, 3]),), v, accumulate=True)\nout = y",
      {**X, "v": "f32[3,5]"}),
    t("index_put", "out = torch.index_put(x, (torch.tensor([1, 1]), torch.tensor([2, 2])), v, True)",
      {**X, "v": "f32[2]"}),
    t("index_put_", "y = x * 1\ntorch.index_put_(y, (torch.tensor([3]),), torch.tensor(0.5))\nout = y"),
    m("put", "out = x.put(torch.tensor([0, 7, -1]), s)", {**X, "s": "f32[3]"}),
    m("put_", "y = x * 1\ny.put_(torch.tensor([1, 1, 9]), s, accumulate=True)\nout = y", {**X, "s": "f32[3]"}),
    t("put", "out = torch.put(x, torch.tensor([2, 5]), s)", {**X, "s": "f32[2]"}),
    # matrix products
    m("addr", "out = x.addr(v, w, beta=0.5, alpha=2)", {**X, "v": "f32[4]", "w": "f32[5]"}),
    m("addr_", "y = x * 1\ny.addr_(v, w)\nout = y", {**X, "v": "f32[4]", "w": "f32[5]"}),
    t("addr", "out = torch.addr(x, v, w)", {**X, "v": "f32[4]", "w": "f32[5]"}),
    m("addbmm", "out = x.addbmm(b1, b2)", {**X, "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"}, **SUM),
    m("addbmm_", "y = x * 1\ny.addbmm_(b1, b2, alpha=0.5)\nout = y", {**X, "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"}, **SUM),
    m("addmm_", "y = x * 1\ny.addmm_(a, b, beta=2)\nout = y", {**X, "a": "f32[4,3]", "b": "f32[3,5]"}, **SUM),
    m("addmv_", "y = v * 1\ny.addmv_(x, w)\nout = y", {**X, "v": "f32[4]", "w": "f32[5]"}, **SUM),
    t("addmv_", "y = v * 1\ntorch.addmv_(y, x, w, alpha=3)\nout = y", {**X, "v": "f32[4]", "w": "f32[5]"}, **SUM),
    m("baddbmm_", "y = b * 1\ny.baddbmm_(b1, b2)\nout = y", {"b": "f32[3,4,5]", "b1": "f32[3,4,2]", "b2": "f32[3,2,5]"},
      **SUM),
    # dropout functions at torch level, detach
    t("feature_dropout", "out = torch.feature_dropout(x, 0.5, False)", IMG, **NOGRAD),
    t("feature_dropout_", "y = x * 1\ntorch.feature_dropout_(y, 0.2, False)\nout = y", IMG, **NOGRAD),
    t("dropout_", "y = x * 1\ntorch.dropout_(y, 0.3, False)\nout = y", **NOGRAD),
    t("alpha_dropout_", "y = x * 1\ntorch.alpha_dropout_(y, 0.3, False)\nout = y", **NOGRAD),
    t("feature_alpha_dropout_", "y = x * 1\ntorch.feature_alpha_dropout_(y, 0.3, False)\nout = y", IMG, **NOGRAD),
    t("dropout", stats("torch.dropout(torch.ones(8000), 0.5, True)", 1.0, 1.0, 0.05), {}, **NOGRAD),
    t("alpha_dropout", "out = torch.alpha_dropout(x, 0.5, False)", **NOGRAD),
    t("feature_alpha_dropout", "out = torch.feature_alpha_dropout(x, 0.5, False)", IMG, **NOGRAD),
    t("detach", "out = torch.detach(x) * 2", **NOGRAD),
    # special functions
    t("digamma", "out = torch.digamma(x.abs() + 0.5)", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    m("digamma", "out = (x.abs() + 0.2).digamma()", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    m("digamma_", "y = x.abs() + 1\ny.digamma_()\nout = y", rtol=1e-4, atol=1e-5, why="float32 series/asymptotic expansion"),
    t("lgamma", "out = torch.lgamma(x.abs() + 0.5)", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    m("lgamma", "out = (x * 3).lgamma()", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    m("lgamma_", "y = x.abs() + 2\ny.lgamma_()\nout = y", rtol=1e-4, atol=1e-5, why="float32 Lanczos/Stirling approximation"),
    # random fills and sampling: distributions, not draws
    m("exponential_", stats("torch.empty(20000).exponential_(2.0)", 0.5, 0.5, 0.03), {}, **NOGRAD),
    m("cauchy_", "y = torch.empty(20000).cauchy_(1.0, 0.5)\nout = abs(y.median().item() - 1.0) < 0.05", {}, **NOGRAD),
    m("log_normal_", "y = torch.empty(20000).log_normal_(0.0, 0.5).log()\n"
      "out = (abs(y.mean().item()) < 0.03, abs(y.std().item() - 0.5) < 0.03)", {}, **NOGRAD),
    m("geometric_", stats("torch.empty(20000).geometric_(0.5)", 2.0, 1.414, 0.06) +
      "\nout = out + (bool((y >= 1).all()),)", {}, **NOGRAD),
    m("multinomial", "s = p.multinomial(3)\nout = (s.shape, bool((s >= 0).all() and (s < 6).all()), "
      "[len(set(r)) for r in s.numpy().tolist()])", {"p": "pos[4,6]"}, **NOGRAD),
    t("multinomial", "s = torch.multinomial(torch.tensor([0.0, 1.0, 0.0, 3.0]), 4000, replacement=True)\n"
      "out = (bool(((s == 1) | (s == 3)).all()), abs((s == 3).float().mean().item() - 0.75) < 0.03)", {}, **NOGRAD),
    m("new", "out = (x.new(2, 3).shape, x.new([1.0, 2.0]))", **NOGRAD),  # torch's x.new(2, 3) is uninitialised
    m("bernoulli", stats("torch.full((20000,), 0.3).bernoulli()", 0.3, 0.458, 0.02), {}, **NOGRAD),
    m("logical_not_", "y = x * 1\ny.logical_not_()\nout = y", **NOGRAD),
    m("itemsize", "out = (x.itemsize, x.double().itemsize)", **NOGRAD),
    m("nbytes", "out = x.nbytes", **NOGRAD),
    # torch-level aliases of functional ops
    t("adaptive_avg_pool1d", "out = torch.adaptive_avg_pool1d(x, 3)", SEQ),
    t("avg_pool1d", "out = torch.avg_pool1d(x, 3, 2, 1)", SEQ),
    t("max_pool1d", "out = torch.max_pool1d(x, 2)", SEQ),
    t("max_pool2d", "out = torch.max_pool2d(x, 3, 2, 1)", IMG),
    t("bilinear", "out = torch.bilinear(x, y, w, b)", {"x": "f32[5,6]", "y": "f32[5,4]", "w": "f32[3,6,4]", "b": "f32[3]"},
      **CONV),
    t("celu", "out = torch.celu(x, 0.7)", **ULP), t("selu", "out = torch.selu(x)", **ULP),
    t("threshold", "out = torch.threshold(x, 0.2, -1.0)"), t("hardshrink", "out = torch.hardshrink(x, 0.4)"),
    t("prelu", "out = torch.prelu(x, w)", {**IMG, "w": "f32[4]"}),
    t("conv1d", "out = torch.conv1d(x, w, None, 1, 1)", {**SEQ, "w": "f32[3,4,3]"}, **CONV),
    t("conv2d", "out = torch.conv2d(x, w, b, 2, 1)", {**IMG, "w": "f32[3,4,3,3]", "b": "f32[3]"}, **CONV),
    t("conv3d", "out = torch.conv3d(x, w, padding=1)", {"x": "f32[1,2,4,4,4]", "w": "f32[3,2,3,3,3]"}, **CONV),
    t("conv_transpose1d", "out = torch.conv_transpose1d(x, w, stride=2)", {**SEQ, "w": "f32[4,3,3]"}, **CONV),
    t("conv_transpose2d", "out = torch.conv_transpose2d(x, w, stride=2, padding=1)", {**IMG, "w": "f32[4,2,4,4]"}, **CONV),
    t("conv_transpose3d", "out = torch.conv_transpose3d(x, w, stride=2)", {"x": "f32[1,2,3,3,3]", "w": "f32[2,3,2,2,2]"},
      **CONV),
    t("cosine_similarity", "out = torch.cosine_similarity(x, y, 1)", XY, **SUM),
    t("pairwise_distance", "out = torch.pairwise_distance(x, y)", XY, **SUM),
    t("pixel_shuffle", "out = torch.pixel_shuffle(x, 2)", IMG), t("pixel_unshuffle", "out = torch.pixel_unshuffle(x, 2)", IMG),
    t("softmax", "out = torch.softmax(x, 1)"), t("log_softmax", "out = torch.log_softmax(x, dim=0)", **ULP),
    t("layer_norm", "out = torch.layer_norm(x, (5,))", rtol=1e-4, atol=1e-5, why="float32 mean/var then a division"),
    t("group_norm", "out = torch.group_norm(x, 2)", IMG, rtol=1e-4, atol=1e-5, why="float32 mean/var then a division"),
    t("rrelu", "out = torch.rrelu(x, 0.1, 0.3)"), t("channel_shuffle", "out = torch.channel_shuffle(x, 2)", IMG),
    t("rms_norm", "out = torch.rms_norm(x, [5], eps=1e-5)", **SUM),
    # functional batch 2
    f("conv3d", "out = F.conv3d(x, w, stride=2)", {"x": "f32[1,2,5,5,5]", "w": "f32[2,2,3,3,3]"}, **CONV),
    f("conv_transpose3d", "out = F.conv_transpose3d(x, w)", {"x": "f32[1,2,3,3,3]", "w": "f32[2,2,2,2,2]"}, **CONV),
    f("rms_norm", "out = F.rms_norm(x, (6, 6), weight=w)", {**IMG, "w": "f32[6,6]"}, **SUM),
    f("rrelu", "out = F.rrelu(x, training=False)"),
    f("rrelu", "y = F.rrelu(-torch.ones(20000), 0.1, 0.3, training=True)\n"
      "out = (abs(y.mean().item() + 0.2) < 0.01, bool((y <= -0.1 + 1e-6).all() and (y >= -0.3 - 1e-6).all()))", {},
      variant="training_slopes", **NOGRAD),
    f("lp_pool1d", "out = F.lp_pool1d(x.abs(), 2, 3, stride=2)", SEQ, **SUM),
    f("lp_pool2d", "out = F.lp_pool2d(x.abs(), 3.0, 2)", IMG, **SUM),
    f("conv_transpose1d", "out = F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1)",
      {**SEQ, "w": "f32[4,2,3]", "b": "f32[2]"}, **CONV),
    f("channel_shuffle", "out = F.channel_shuffle(x, 4)", IMG),
    f("triplet_margin_with_distance_loss", "out = F.triplet_margin_with_distance_loss(a, p, n, margin=0.5)",
      {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"}, **SUM),
    f("triplet_margin_with_distance_loss", "out = F.triplet_margin_with_distance_loss(a, p, n, "
      "distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), swap=True, reduction='none')",
      {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"}, variant="cosine_swap", **SUM),
    f("multilabel_margin_loss", "out = F.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], "
      "[-1, 0, 0, 0, 0], [4, -1, 2, 2, 2]]))"),
    f("upsample_bilinear", "out = F.upsample_bilinear(x, scale_factor=2)", IMG, rtol=1e-4, atol=1e-5,
      why="float32 interpolation weights from computed coordinates"),
    f("upsample_nearest", "out = F.upsample_nearest(x, size=(9, 9))", IMG),
    f("gumbel_softmax", "y = F.gumbel_softmax(x, tau=0.5, hard=True)\n"
      "out = (bool(((y == 0) | (y == 1)).all()), bool((y.sum(-1) == 1).all()))", **NOGRAD),
    f("gumbel_softmax", "y = F.gumbel_softmax(x)\nout = (bool(((y.sum(-1) - 1).abs() < 1e-5).all()), bool((y > 0).all()))",
      variant="soft", **NOGRAD),
    # layers batch 2
    layer("RMSNorm", "RMSNorm(6)", {"x": "f32[3,6]"}, **SUM),
    layer("RMSNorm", "RMSNorm([6, 6], eps=1e-3, elementwise_affine=False)", variant="2d", **SUM),
    layer("RReLU", "RReLU(0.1, 0.2)", call="m.eval()\nout = m(x)"),
    layer("LPPool1d", "LPPool1d(2, 3)", SEQ, call="out = m(x.abs())", **SUM),
    layer("LPPool2d", "LPPool2d(1, (2, 3), stride=2)", call="out = m(x)", **SUM),
    layer("ConvTranspose1d", "ConvTranspose1d(4, 6, 3, stride=2, padding=1, groups=2)", SEQ, **CONV),
    layer("ConvTranspose1d", "ConvTranspose1d(4, 2, 4, bias=False, dilation=2)", SEQ, variant="dilation_nobias", **CONV),
    layer("ChannelShuffle", "ChannelShuffle(2)"),
    layer("TripletMarginWithDistanceLoss", "TripletMarginWithDistanceLoss(margin=0.3)",
          {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"}, call="out = m(a, p, n)", **SUM),
    layer("MultiLabelMarginLoss", "MultiLabelMarginLoss(reduction='sum')", X,
          call="out = m(x, torch.tensor([[0, 1, -1, 3, 3], [4, 3, 2, 1, 0], [2, -1, 0, 0, 0], [1, 4, -1, 0, 0]]))"),
    layer("InstanceNorm3d", "InstanceNorm3d(2, affine=True)", {"x": "f32[2,2,3,4,4]"}, rtol=1e-4, atol=1e-5,
          why="float32 mean/var over 48 values, then a division"),
    layer("ConvTranspose3d", "ConvTranspose3d(2, 3, 2, stride=2)", {"x": "f32[1,2,3,3,3]"}, **CONV),
    layer("AdaptiveAvgPool3d", "AdaptiveAvgPool3d(2)", {"x": "f32[1,2,4,4,4]"}),
    layer("AdaptiveMaxPool3d", "AdaptiveMaxPool3d((2, 2, 1))", {"x": "f32[1,2,4,4,4]"}),
    case(A, "torch.nn.Buffer", "out = (m(x), len(list(m.parameters())), len(m.state_dict()), m.total)", {"x": "f32[4]"},
         setup="class Counter(nn.Module):\n"
               "    def __init__(self):\n"
               "        super().__init__()\n"
               "        self.scale = nn.Parameter(torch.ones(4))\n"
               "        self.total = nn.Buffer(torch.zeros(4))\n"
               "        self.tmp = nn.Buffer(torch.ones(1), persistent=False)\n\n"
               "    def forward(self, x):\n"
               "        return x * self.scale + self.total + self.tmp\n\n\n"
               "m = Counter()"),
]
