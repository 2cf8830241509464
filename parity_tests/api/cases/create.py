"""Creation and random calls.  Random draws differ between frameworks by design (different
generators), so random cases compare shape and dtype, or moments on large samples."""
from ..case import case, api_makers, moments_src

A = "create"
X = {"x": "f32[2,3]"}
# Moments of 20000 draws: standard error of the mean ~0.007, of the std ~0.005; 0.05 is >7 sigma.
STATS = dict(compare="stats", atol=0.05, why="moments of 20000 random draws (>7 standard errors)", grad=False)

CASES = [
    case(A, "torch.zeros", "out = torch.zeros(2, 3)"),
    case(A, "torch.zeros", "out = torch.zeros((2, 3), dtype=torch.int64)", variant="dtype"),
    case(A, "torch.ones", "out = torch.ones([4])"),
    case(A, "torch.ones", "out = torch.ones(2, 2, dtype=torch.float64)", variant="f64"),
    case(A, "torch.full", "out = torch.full((2, 3), 7.5)"),
    case(A, "torch.full", "out = torch.full((2,), 7)", variant="int_fill"),
    case(A, "torch.zeros_like", "out = torch.zeros_like(x)", X),
    case(A, "torch.ones_like", "out = torch.ones_like(x)", X),
    case(A, "torch.full_like", "out = torch.full_like(x, 3.0)", X),
    case(A, "torch.full_like", "out = torch.full_like(x, 0.5, dtype=torch.float64)", X, variant="dtype"),
    case(A, "torch.empty", "out = torch.empty(2, 3).shape", variant="shape"),
    case(A, "torch.empty_like", "out = torch.empty_like(x).shape", X),
    case(A, "torch.eye", "out = torch.eye(3)"),
    case(A, "torch.eye", "out = torch.eye(2, 4)", variant="rect"),
    case(A, "torch.arange", "out = torch.arange(5)"),
    case(A, "torch.arange", "out = torch.arange(1, 10, 3)", variant="step"),
    case(A, "torch.arange", "out = torch.arange(0.0, 1.0, 0.25)", variant="float"),
    case(A, "torch.arange", "out = torch.arange(5, dtype=torch.float32)", variant="dtype"),
    case(A, "torch.linspace", "out = torch.linspace(0, 1, 5)"),
    case(A, "torch.linspace", "out = torch.linspace(-1.0, 1.0, steps=7)", variant="kw"),
    case(A, "torch.linspace", "out = torch.linspace(0, 1, 1)", variant="one"),
    case(A, "torch.logspace", "out = torch.logspace(0, 2, 3)", rtol=2e-5, why="pow in float32"),
    case(A, "torch.tensor", "out = torch.tensor([[1.0, 2.0], [3.0, 4.0]])"),
    case(A, "torch.tensor", "out = torch.tensor([1, 2, 3])", variant="int"),
    case(A, "torch.tensor", "out = torch.tensor(3.5)", variant="scalar"),
    case(A, "torch.tensor", "out = torch.tensor(x.detach().numpy(), dtype=torch.float32)", X, variant="numpy"),
    case(A, "torch.as_tensor", "out = torch.as_tensor([1.0, 2.0])"),
    case(A, "torch.from_numpy", "out = torch.from_numpy(x.detach().numpy())", X, grad=False),
    case(A, "torch.Tensor", "out = torch.Tensor(x.detach().numpy())", X, variant="from_numpy", grad=False),
    case(A, "torch.FloatTensor", "out = torch.FloatTensor([1, 2])"),
    case(A, "torch.LongTensor", "out = torch.LongTensor([1, 2])"),
    case(A, "torch.LongTensor", "out = torch.LongTensor(range(2, 7))", variant="range"),
    case(A, "torch.tensor", "out = torch.tensor(range(3), dtype=torch.float32)", variant="range"),
    # 64-bit data kept exact: Jittor's 64->32 conversion made [2**40, 3] into [0, 3]
    case(A, "torch.tensor", "out = torch.tensor([2**40, 3], dtype=torch.int64)", variant="int64_wide", grad=False),
    case(A, "torch.tensor", "out = torch.tensor([0.1, 1 / 3], dtype=torch.float64)", variant="f64_exact", grad=False),
    case(A, "torch.LongTensor", "out = torch.LongTensor([2**40, -5])", variant="int64_wide", grad=False),
    case(A, "torch.stack", "out = torch.stack([x.mean(), F.mse_loss(x, 2 * x), x.sum()])", X, variant="losses"),
    case(A, "torch.is_tensor", "out = torch.is_tensor(x)", X),
    case(A, "torch.float32", "out = torch.zeros(2, dtype=torch.float32)"),
    case(A, "torch.float64", "out = torch.zeros(2, dtype=torch.float64)"),
    case(A, "torch.int64", "out = torch.zeros(2, dtype=torch.int64)"),
    case(A, "torch.int32", "out = torch.zeros(2, dtype=torch.int32)"),
    case(A, "torch.bool", "out = torch.zeros(2, dtype=torch.bool)"),
    case(A, "torch.uint8", "out = torch.zeros(2, dtype=torch.uint8)"),
    case(A, "torch.float16", "out = torch.zeros(2, dtype=torch.float16)"),
    case(A, "torch.long", "out = torch.zeros(2, dtype=torch.long)"),
    case(A, "torch.float", "out = torch.zeros(2, dtype=torch.float)"),
    case(A, "torch.randn", "out = torch.randn(200, 100)", **STATS),
    case(A, "torch.randn", "out = torch.randn((2, 3))", variant="tuple", compare="shape", grad=False),
    case(A, "torch.rand", "out = torch.rand(200, 100)", **STATS),
    case(A, "torch.randn_like", "out = torch.randn_like(x)", X, compare="shape", grad=False),
    case(A, "torch.rand_like", "out = torch.rand_like(x)", X, compare="shape", grad=False),
    case(A, "torch.randint", "out = torch.randint(0, 10, (3, 4))", compare="shape", grad=False),
    case(A, "torch.randint", "out = torch.randint(10, (3,))", variant="high_only", compare="shape", grad=False),
    case(A, "torch.randint", "out = torch.randint(10, size=(3,))", variant="high_size_keyword", compare="shape",
         grad=False),
    case(A, "torch.randint", "out = torch.randint(high=10, size=(2, 3))", variant="keywords", compare="shape",
         grad=False),
    case(A, "torch.randint", "v = torch.randint(3, 7, size=(500,))\nout = torch.stack([v.min(), v.max()]).float()",
         variant="range", grad=False),
    case(A, "torch.randperm", "out = torch.sort(torch.randperm(10))[0]"),
    case(A, "torch.normal", "out = torch.normal(2.0, 3.0, size=(200, 100))", **dict(STATS, atol=0.15)),
    case(A, "torch.bernoulli", "out = torch.bernoulli(torch.full((200, 100), 0.3))", **STATS),
    case(A, "torch.multinomial", "out = torch.multinomial(p, 2).shape", {"p": "u01[3,5]"}, grad=False),
    case(A, "torch.manual_seed", "torch.manual_seed(3)\nout = torch.zeros(1)"),
    # torch's own CPU stream (shims.random_torch): the same seed gives torch's sampler order
    case(A, "torch.manual_seed", "torch.manual_seed(3)\nout = torch.tensor(list(torch.utils.data.RandomSampler("
         "range(12), num_samples=30)))", variant="sampler_order", grad=False),
    case(A, "torch.Generator", "g = torch.Generator()\ng.manual_seed(7)\n"
         "dl = torch.utils.data.DataLoader(list(range(11)), batch_size=4, shuffle=True, generator=g)\n"
         "out = torch.tensor([i for _ in range(2) for b in dl for i in b.tolist()] + [g.initial_seed()])",
         grad=False),
    case(A, "torch.Generator", "g = torch.Generator().manual_seed(2 ** 40 + 9)\n"
         "out = torch.tensor(list(torch.utils.data.SubsetRandomSampler(list(range(5, 25)), generator=g)))",
         variant="subset_sampler", grad=False),
    # .tensors is the tensors given (pytorch-flows passes loader.dataset.tensors[0] to the model)
    case(A, "torch.utils.data.TensorDataset", "ds = torch.utils.data.TensorDataset(x, y)\n"
         "out = ds.tensors[0] * ds.tensors[1].size(-1) + len(ds.tensors) * 10 + len(ds) * 100",
         {"x": "f32[6,3]", "y": "f32[6,2]"}, variant="tensors", grad=False),
    case(A, "torch.Tensor.normal_", "y = torch.zeros(200, 100)\ny.normal_(1.0, 2.0)\nout = y", **dict(STATS, atol=0.1)),
    case(A, "torch.Tensor.uniform_", "y = torch.zeros(200, 100)\ny.uniform_(-1.0, 1.0)\nout = y", **STATS),
    case(A, "torch.Tensor.random_", "y = torch.zeros(3)\ny.random_(0, 5)\nout = y.shape", grad=False),
    case(A, "torch.Tensor.bernoulli_", "y = torch.zeros(200, 100)\ny.bernoulli_(0.5)\nout = y", **STATS),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
ULP = dict(rtol=2e-5, atol=2e-6, why="float32 transcendental: a few ulps between libm implementations")
NOGRAD = dict(grad=False)
at_torch, on_tensor, in_functional = api_makers(A, X45)

CASES += [
    at_torch("hann_window", "out = (torch.hann_window(8), torch.hann_window(5, periodic=False), torch.hann_window(1))", {},
      **ULP),
    at_torch("hamming_window", "out = torch.hamming_window(7, True, alpha=0.5, beta=0.4)", {}, **ULP),
    at_torch("blackman_window", "out = torch.blackman_window(9, False)", {}, rtol=2e-5, atol=1e-6,
      why="float32 rounding of the float64 formula (values near 0)"),
    at_torch("bartlett_window", "out = torch.bartlett_window(6)", {}),
    at_torch("kaiser_window", "out = torch.kaiser_window(8, True, 5.0)", {}, **ULP),
    on_tensor("exponential_", moments_src("torch.empty(20000).exponential_(2.0)", 0.5, 0.5, 0.03), {}, **NOGRAD),
    on_tensor("cauchy_", "y = torch.empty(20000).cauchy_(1.0, 0.5)\nout = abs(y.median().item() - 1.0) < 0.05", {}, **NOGRAD),
    on_tensor("log_normal_", "y = torch.empty(20000).log_normal_(0.0, 0.5).log()\n"
      "out = (abs(y.mean().item()) < 0.03, abs(y.std().item() - 0.5) < 0.03)", {}, **NOGRAD),
    on_tensor("geometric_", moments_src("torch.empty(20000).geometric_(0.5)", 2.0, 1.414, 0.06) +
      "\nout = out + (bool((y >= 1).all()),)", {}, **NOGRAD),
    on_tensor("multinomial", "s = p.multinomial(3)\nout = (s.shape, bool((s >= 0).all() and (s < 6).all()), "
      "[len(set(r)) for r in s.numpy().tolist()])", {"p": "pos[4,6]"}, **NOGRAD),
    at_torch("multinomial", "s = torch.multinomial(torch.tensor([0.0, 1.0, 0.0, 3.0]), 4000, replacement=True)\n"
      "out = (bool(((s == 1) | (s == 3)).all()), abs((s == 3).float().mean().item() - 0.75) < 0.03)", {},
             variant="replacement_frequencies", **NOGRAD),
    on_tensor("new", "out = (x.new(2, 3).shape, x.new([1.0, 2.0]))", **NOGRAD),  # torch's x.new(2, 3) is uninitialised
    on_tensor("bernoulli", moments_src("torch.full((20000,), 0.3).bernoulli()", 0.3, 0.458, 0.02), {}, **NOGRAD),
]
