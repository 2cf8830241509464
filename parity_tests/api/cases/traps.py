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
    # the index shorter than the rank, on a computed Var without a graph (Jittor wrote one element)
    m("__setitem__", "with torch.no_grad():\n    y = x.clone()\n    " + RUN.strip() + "\n    y[0] = 5.0\nout = y",
      variant="computed_no_grad_row", **NOGRAD),
    m("__setitem__", "y = i.clone()\n" + RUN + "y[0:2] = torch.full((2, 1), 9)\nout = y", INT,
      variant="computed_int_slice_broadcast", **NOGRAD),
    m("__setitem__", "y = x.detach().clone()\n" + RUN + "y[1:] = 7.0\nout = y", variant="computed_detached_tail",
      **NOGRAD),
    # torch writes through these (views share storage); Jittor Vars never share storage
    m("detach", "y = x.detach()\ny[0] = 100.0\nout = x * 1.0", variant="setitem_writes_through", **NOGRAD,
      xfail="a detached Jittor Var is a copy: the write does not reach x (no shared storage in Jittor)"),
    m("__getitem__", "y = x * 1.0\nv = y[0:2]\nv[0] = 5.0\nout = y", variant="slice_view_writes_through", **NOGRAD,
      xfail="a sliced Jittor Var is a copy: the write does not reach y (no shared storage in Jittor)"),
    m("__getitem__", "y = x * 1.0\nv = y[0]\nv[1] = 5.0\nout = y", variant="int_view_writes_through"),
    m("__setitem__", "y = x\ny[0] = 5.0\nout = x * 1.0", variant="same_object", **NOGRAD),
    # range as an index: torch's advanced index (the list of its values)
    m("__getitem__", "out = (x[range(2)], x[:, range(1, 3)], x[range(2), range(2)])", variant="range"),
    m("__setitem__", "y = x * 1.0\ny[range(0, 3, 2)] = 0.0\ny[:, range(1, 3)] = z\nout = y",
      {**X, "z": "f32[3,2]"}, variant="range"),
]
