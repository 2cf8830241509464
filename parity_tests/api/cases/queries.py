"""Device, compiler and serialization queries, and torchvision's make_grid (rows the public corpus
reached: shims.queries, shims.checkpoint.safe_globals, shims.vision.make_grid_tensor)."""
from ..case import case, api_makers

A = "queries"
X = {"x": "f32[2,3]"}
TV = "import torchvision\n"
IMGS = {"x": "u01[5,1,4,3]"}

CASES = [
    case(A, f"torch.Tensor.{name}", f"out = x.{name}", X, grad=False)
    for name in ("is_xpu", "is_mps", "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mtia", "is_vulkan", "is_xla",
                 "is_nested", "is_quantized", "is_sparse_csr")
] + [
    case(A, "torch.cuda.is_bf16_supported", "out = torch.cuda.is_bf16_supported()"),
    case(A, "torch.compile", "m = torch.compile(nn.Identity())\nout = m(x) * 2", X),
    case(A, "torch.Size", "s = torch.Size([2, 3, 4])\nout = (s.numel(), len(s), s[1])"),
    case(A, "torch.serialization.safe_globals", "import io\nbuf = io.BytesIO()\ntorch.save({'w': x}, buf)\nbuf.seek(0)\n"
         "with torch.serialization.safe_globals([]):\n    out = torch.load(buf)['w']", X, grad=False),
    case(A, "torch.serialization.add_safe_globals", "torch.serialization.add_safe_globals([])\n"
         "out = len(torch.serialization.get_safe_globals()) >= 0", grad=False),
    case(A, "torch.serialization.get_safe_globals", "out = isinstance(torch.serialization.get_safe_globals(), list)",
         grad=False),
    case(A, "torch.serialization.clear_safe_globals", "torch.serialization.clear_safe_globals()\n"
         "out = len(torch.serialization.get_safe_globals())", grad=False),
    case(A, "torchvision.utils.make_grid", "out = torchvision.utils.make_grid(x, nrow=2, padding=1)", IMGS,
         extra_prelude=TV, grad=False),
    case(A, "torchvision.utils.make_grid", "out = torchvision.utils.make_grid(x * 3, normalize=True, scale_each=True)",
         IMGS, variant="normalize", extra_prelude=TV, grad=False, rtol=1e-5, atol=1e-6),
]
CASES += [
    case(A, "torch.nn.Embedding.from_pretrained", "m = nn.Embedding.from_pretrained(w)\nout = m(i)",
         {"w": "f32[10,4]", "i": "i64<0,10>[3]"}, grad=False),
    case(A, "torch.nn.Embedding.from_pretrained", "m = nn.Embedding.from_pretrained(w, freeze=False)\n"
         "out = m.weight.requires_grad", {"w": "f32[10,4]", "i": "i64<0,10>[3]"}, variant="trainable",
         grad=False),
]
P = {"p": "pos[3,5]", "a": "i64<0,5>[3]"}
CASES += [
    case(A, "torch.distributions.Categorical", "d = torch.distributions.Categorical(p)\n"
         "lp, ent, probs = d.log_prob(a), d.entropy(), d.probs", P, outputs=("lp", "ent", "probs"), grad=False),
    case(A, "torch.distributions.Categorical", "d = torch.distributions.Categorical(logits=p)\n"
         "out = d.log_prob(a) + d.entropy()", P, variant="logits", grad=False, rtol=1e-5, atol=1e-6),
    case(A, "torch.distributions.Categorical", "out = torch.distributions.Categorical(p).sample((4,))", P,
         variant="sample", compare="shape", why="random draws", grad=False),
    case(A, "torch.distributions.categorical.Categorical",
         "from torch.distributions.categorical import Categorical\nout = Categorical(p).entropy()", P, grad=False),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
NOGRAD = dict(grad=False)
at_torch, on_tensor, in_functional = api_makers(A, X45)

CASES += [
    at_torch("promote_types", "out = (torch.zeros(2, dtype=torch.promote_types(torch.int32, torch.float16)), "
      "torch.zeros(2, dtype=torch.promote_types(torch.uint8, torch.int8)))", {}),
    at_torch("result_type", "out = (torch.zeros(1, dtype=torch.result_type(i, 2.5)), torch.zeros(1, dtype=torch.result_type(x, 2)), "
      "torch.zeros(1, dtype=torch.result_type(i, x)))", {**X45, "i": "i32<0,5>[3]"}),
    at_torch("can_cast", "out = (torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float64), "
      "torch.can_cast(torch.bool, torch.uint8))", {}),
    on_tensor("itemsize", "out = (x.itemsize, x.double().itemsize)", **NOGRAD),
    on_tensor("nbytes", "out = x.nbytes", **NOGRAD),
]
