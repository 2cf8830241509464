"""Jittor's silent traps (issue 17): aliasing of ``clone``/``detach``/views under ``__setitem__``,
Jittor 1.3.11's short-index setitem on computed Vars, ``range`` indices; device and runtime
queries; sparse tensors on their dense fallback (``shims.sparse``)."""
from ..case import case

A = "traps"
X = {"x": "f32[3,4]"}
INT = {"i": "i64<0,50>[3,4]"}
NOGRAD = dict(grad=False)
# A Var computed (``.item()`` runs it) with no backward graph: where Jittor's in-place setitem
# wrote only the first element of the row (``shims.indexing``)
RUN = "_ = float(y.sum().item())\n"


def t(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.{name}", src, inputs, variant=variant, **kw)


def m(name, src, inputs=X, variant="", **kw):
    return case(A, f"torch.Tensor.{name}", src, inputs, variant=variant, **kw)


CASES = [
    # clone never aliases: the source keeps its values, whatever the index form
    m("clone", "y = x.clone()\ny[0] = 100.0\nout = (x * 1.0, y)", variant="setitem_row"),
    m("clone", "y = x.clone()\ny[:, 1] = 7.0\nout = (x * 1.0, y)", variant="setitem_col"),
    m("clone", "y = x.clone()\ny[torch.tensor([0, 2])] = -1.0\nout = (x * 1.0, y)", variant="setitem_index"),
    m("clone", "y = x.clone()\ny[x > 0] = 0.0\nout = (x * 1.0, y)", variant="setitem_mask"),
    m("clone", "y = x.clone().detach()\ny[0] = 100.0\nout = (x * 1.0, y)", variant="detach_setitem"),
    m("clone", "y = i.clone()\n" + RUN + "y[0] = 7\nout = (i, y)", INT, variant="int_computed_row", **NOGRAD),
    t("clone", "y = torch.clone(x)\ny[1] = 3.0\nout = (x * 1.0, y)", variant="setitem_row"),
    # Jittor's clone shares the source's memory; an in-place setitem whose value is computed straight
    # into the computed clone's buffer then wrote into x (measured): shims makes clone a real copy
    m("clone", "with torch.no_grad():\n    y = x.clone()\n    " + RUN.strip() + "\n    y[1:] = x[1:] * 0 + 9\n"
      "    _ = float(y.sum().item())\nout = x * 1.0", variant="computed_value_into_clone", **NOGRAD),
    t("clone", "with torch.no_grad():\n    y = torch.clone(x)\n    " + RUN.strip() + "\n    y[1:] = x[1:] * 2\n"
      "    _ = float(y.sum().item())\nout = (x * 1.0, y)", variant="computed_value_into_clone", **NOGRAD),
    t("tensor", "with torch.no_grad():\n    y = torch.tensor(x)\n    " + RUN.strip() + "\n    y[1:] = x[1:] * 2\n"
      "    _ = float(y.sum().item())\nout = (x * 1.0, y)", variant="copy_of_a_tensor_then_setitem", **NOGRAD),
    # the index shorter than the rank, on a computed Var without a graph (Jittor wrote one element)
    m("__setitem__", "with torch.no_grad():\n    y = x.clone()\n    " + RUN.strip() + "\n    y[0] = 5.0\nout = y",
      variant="computed_no_grad_row", **NOGRAD),
    m("__setitem__", "y = i.clone()\n" + RUN + "y[0:2] = torch.full((2, 1), 9)\nout = y", INT,
      variant="computed_int_slice_broadcast", **NOGRAD),
    m("__setitem__", "y = x.detach().clone()\n" + RUN + "y[1:] = 7.0\nout = y", variant="computed_detached_tail",
      **NOGRAD),
    # torch writes through these (views share storage); Jittor Vars never share storage: shims.views
    m("detach", "y = x.detach()\ny[0] = 100.0\nout = x * 1.0", variant="setitem_writes_through", **NOGRAD),
    m("__getitem__", "y = x * 1.0\nv = y[0:2]\nv[0] = 5.0\nout = y", variant="slice_view_writes_through", **NOGRAD),
    m("__getitem__", "y = x * 1.0\nv = y[0]\nv[1] = 5.0\nout = y", variant="int_view_writes_through"),
    m("__setitem__", "y = x\ny[0] = 5.0\nout = x * 1.0", variant="same_object", **NOGRAD),
    # range as an index: torch's advanced index (the list of its values)
    m("__getitem__", "out = (x[range(2)], x[:, range(1, 3)], x[range(2), range(2)])", variant="range"),
    m("__setitem__", "y = x * 1.0\ny[range(0, 3, 2)] = 0.0\ny[:, range(1, 3)] = z\nout = y",
      {**X, "z": "f32[3,2]"}, variant="range"),
    # an element taken by integers (torch: a 0-d tensor) indexes as its integer (NeuS's
    # ``pose_all[perm[k], :3, 3]``); a one-element 1-D index keeps its dimension in both
    m("__getitem__", "p = torch.tensor([2, 0, 1])\nk = p[1]\nout = (x[k], x[k, :3], x[p[2], None, 1:3], x[k, p[0]])",
      variant="element_as_index"),
    m("__getitem__", "q = torch.tensor([[1, 2], [0, 3]])\nout = (x[q[0, 1]], x[:, q[1, 1]], x[torch.tensor([2])])",
      variant="element_of_2d_as_index"),
    m("__setitem__", "p = torch.tensor([2, 0])\ny = x * 1.0\ny[p[0], 1:3] = 9.0\nout = y", variant="element_as_index"),
    # a uint8 tensor as an index: torch's (deprecated) boolean mask; Jittor gathers by its 0/1 values
    m("__getitem__", "out = x[(x[:, 0] > 0).type(torch.uint8), 1:]", variant="uint8_mask_in_tuple"),
    m("__setitem__", "m = (x > 0).to(torch.uint8)\ny = x * 1.0\ny[m] = y[m] * 0.5\nout = y", variant="uint8_mask"),
    # device and runtime queries (torch here runs without CUDA, as Jittor does)
    t("cuda.is_available", "out = (torch.cuda.is_available(), torch.cuda.device_count())", {}),
    t("cuda.device_count", "out = torch.zeros(torch.cuda.device_count() + 2)", {}),
    t("cuda.synchronize", "if torch.cuda.is_available():\n    torch.cuda.synchronize()\nout = x * 2.0"),
    t("cuda.empty_cache", "torch.cuda.empty_cache()\nout = x * 2.0"),
    t("cuda.manual_seed", "torch.cuda.manual_seed(3)\nout = torch.rand(4, 5)", {}, compare="shape"),
    t("cuda.manual_seed_all", "torch.cuda.manual_seed_all(3)\nout = torch.rand(4, 5)", {}, compare="shape"),
    t("accelerator.is_available", "out = torch.accelerator.is_available()", {}),
    t("accelerator.device_count", "out = torch.accelerator.device_count()", {}),
    t("accelerator.current_accelerator",
      "acc = torch.accelerator.current_accelerator(check_available=True)\n"
      "dev = acc.type if torch.accelerator.is_available() else 'cpu'\nout = (acc is None, dev == 'cpu')", {}),
    t("accelerator.current_device_index",
      "out = torch.accelerator.current_device_index() if torch.accelerator.is_available() else -1", {}),
    t("accelerator.synchronize", "if torch.accelerator.is_available():\n    torch.accelerator.synchronize()\n"
      "out = x + 1.0"),
    m("is_cuda", "out = (x.is_cuda, (x * 2).is_cuda)"),
    m("is_cpu", "out = x.is_cpu"),
    m("device", "out = (x.device.type == 'cpu', x.device == torch.device('cpu'), str(x.device) == 'cpu', "
      "x.device.index is None, torch.zeros(2, device=x.device).shape[0])"),
    t("finfo", "f = torch.finfo(torch.float32)\nh = torch.finfo(torch.float16)\n"
      "out = (f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.bits, f.resolution, h.eps, h.max, h.bits, "
      "torch.finfo().eps, torch.finfo(x.dtype).max, x.clamp(min=torch.finfo(x.dtype).eps))"),
    t("iinfo", "out = (torch.iinfo(torch.int32).max, torch.iinfo(torch.int32).min, torch.iinfo(torch.uint8).max, "
      "torch.iinfo(torch.int8).min, torch.iinfo(torch.int16).bits, torch.iinfo(i.dtype).bits >= 32)", INT),
    t("__version__", "v = torch.__version__\nmajor, minor = (int(p) for p in v.split('+')[0].split('.')[:2])\n"
      "out = (major, minor, v.startswith(('1.7.', '1.8.', '1.9')))", {}),
    t("autograd.profiler.record_function", "with torch.autograd.profiler.record_function('step'):\n"
      "    out = x * 2.0"),
    t("profiler.record_function", "with torch.profiler.record_function('fwd') as r:\n    y = x.exp()\nout = y"),
    t("backends.cudnn.benchmark", "torch.backends.cudnn.benchmark = True\nout = x * 2.0"),
    t("backends.cudnn.deterministic", "torch.backends.cudnn.deterministic = True\nout = x * 2.0"),
    # the // operator: Jittor truncated integers toward zero and killed the process on floats (SIGFPE)
    m("__floordiv__", "out = (i // 3, i // -4, i // (i.abs() + 1), 7 // (i.abs() + 1), -7 // (i.abs() + 1))",
      {"i": "i64<-50,50>[3,4]"}, variant="negative_ints", **NOGRAD),
    m("__floordiv__", "out = (x // 0.3, 2.0 // (x.abs() + 0.5), x // (x.abs() + 0.5))", variant="floats", **NOGRAD),
    m("__ifloordiv__", "y = i.clone()\ny //= -3\nout = y", {"i": "i64<-50,50>[3,4]"}, variant="negative_ints",
      **NOGRAD),
    # a Python scalar on the left of a full reduction keeps the tensor's dtype (Jittor: float32)
    m("__rmul__", "h = x.half()\nout = ((1.5 * h.sum()).dtype == h.dtype, (2 * i.sum()).dtype == i.sum().dtype, "
      "(0.5 - h.mean()).dtype == h.dtype)", {**X, **INT}, variant="scalar_first_dtype", **NOGRAD),
    # sparse: torch's values and gradients on the dense fallback
    t("sparse_coo_tensor", "i = torch.tensor([[0, 1, 1, 2], [2, 0, 0, 1]])\ns = torch.sparse_coo_tensor(i, v, (3, 3))\n"
      "out = (s.to_dense(), torch.sparse_coo_tensor(i, v).to_dense(), s.is_sparse)", {"v": "f32[4]"}),
    t("sparse_coo_tensor", "i = torch.tensor([[0, 2, 0]])\nout = torch.sparse_coo_tensor(i, v, (4, 2)).to_dense()",
      {"v": "f32[3,2]"}, variant="hybrid"),
    m("to_sparse", "s = x.to_sparse()\nout = (s.to_dense(), s.is_sparse, x.is_sparse)"),
    m("to_dense", "out = (x * 2.0).to_sparse().to_dense()"),
    m("coalesce", "i = torch.tensor([[0, 0, 1], [1, 1, 0]])\n"
      "out = torch.sparse_coo_tensor(i, v, (2, 2)).coalesce().to_dense()", {"v": "f32[3]"}),
    m("is_sparse", "out = (x.is_sparse, x.to_sparse().is_sparse)"),
    t("sparse.mm", "out = torch.sparse.mm(a.to_sparse(), b)", {"a": "f32[3,4]", "b": "f32[4,2]"}),
    t("spmm", "i = torch.tensor([[0, 1, 2], [3, 0, 1]])\nout = torch.spmm(torch.sparse_coo_tensor(i, v, (3, 4)), b)",
      {"v": "f32[3]", "b": "f32[4,2]"}),
    t("sparse.sum", "s = x.to_sparse()\nout = (torch.sparse.sum(s), torch.sparse.sum(s, 1).to_dense())"),
]
