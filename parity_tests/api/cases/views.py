"""In-place writes through torch's views (issue 30): a GENERATED matrix of every torch view op ×
in-place ops (``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_``, ``clamp_``, setitem, ``+=``,
``nn.init.constant_``), each written in two forms: the view expression written into at once
(``y[:, 1:3].mul_(-2.0)``) and the view bound to a name first (``v = y[:, 1:3]; v.mul_(-2.0)``).

torch changes ``y`` through the view; the port must too (``shims.views``), so each cell compares
``y`` after the write (and, in the variable form, the view itself).  Writes into an expanded view
raise in torch (elements share memory): those cells compare that both sides raise.
"""
from ..case import case

A = "views"
Y = "y = x.clone()\n"
#: view op name -> (torch API row, view expression on ``y`` of shape (3, 4))
VIEWS = {
    "getitem_row": ("torch.Tensor.__getitem__", "y[1]"),
    "getitem_cols": ("torch.Tensor.__getitem__", "y[:, 1:3]"),
    "getitem_step": ("torch.Tensor.__getitem__", "y[::2, 1:]"),
    "getitem_none": ("torch.Tensor.__getitem__", "y[None, 2]"),
    "detach": ("torch.Tensor.detach", "y.detach()"),
    "data": ("torch.Tensor.data", "y.data"),
    "view": ("torch.Tensor.view", "y.view(-1)"),
    "reshape": ("torch.Tensor.reshape", "y.reshape(2, 6)"),
    "view_slice": ("torch.Tensor.view", "y.view(-1)[2:7]"),
    "t": ("torch.Tensor.t", "y.t()"),
    "transpose": ("torch.Tensor.transpose", "y.transpose(0, 1)"),
    "permute": ("torch.Tensor.permute", "y.permute(1, 0)"),
    "narrow": ("torch.Tensor.narrow", "y.narrow(1, 1, 2)"),
    "select": ("torch.Tensor.select", "y.select(1, 2)"),
    "unbind": ("torch.Tensor.unbind", "y.unbind(0)[1]"),
    "chunk": ("torch.Tensor.chunk", "y.chunk(2, 1)[1]"),
    "chunk_short_dim": ("torch.Tensor.chunk", "y.chunk(4, 0)[1]"),
    "torch_chunk": ("torch.chunk", "torch.chunk(y, 3, 1)[0]"),
    "split": ("torch.Tensor.split", "y.split(2, 0)[1]"),
    "squeeze": ("torch.Tensor.squeeze", "y[1:2].squeeze(0)"),
    "unsqueeze": ("torch.Tensor.unsqueeze", "y.unsqueeze(0)"),
    "flatten": ("torch.Tensor.flatten", "y.flatten()"),
    "diagonal": ("torch.Tensor.diagonal", "y.diagonal()"),
    "movedim": ("torch.Tensor.movedim", "y.movedim(0, 1)"),
    "transpose_slice": ("torch.Tensor.transpose", "y.transpose(0, 1)[1:3]"),
    "expand": ("torch.Tensor.expand", "y[:, :1].expand(3, 4)"),
}
#: in-place op name -> statement template on the view ``{v}`` (``None``: no one-expression form)
WRITES = {
    "add_": "{v}.add_(1.5)",
    "mul_": "{v}.mul_(-2.0)",
    "zero_": "{v}.zero_()",
    "fill_": "{v}.fill_(7.0)",
    "copy_": "{v}.copy_(torch.arange({v}.numel(), dtype=torch.float32).reshape({v}.shape))",
    "clamp_": "{v}.clamp_(-0.5, 0.5)",
    "setitem": "{v}[0] = 9.0",
    "iadd": "{v} += 2.0",
    "init_constant_": "torch.nn.init.constant_({v}, 0.25)",
}
#: torch raises on these writes (more than one element of the view shares one memory location)
RAISES = {"expand"}
#: cells the port does not match yet (measured): torch raises for a write into an expanded view
#: that reads it (``add_``, ``copy_``...) but lets a constant write (``fill_``, ``zero_``, setitem)
#: reach the shared element; shims.views sees only the written value, and raises for both
MARKED = {("expand", w): "torch writes a constant through an expanded view; the port raises (shims.views "
          "cannot tell a constant write from one that reads the view)" for w in
          ("zero_", "fill_", "setitem", "init_constant_")}


def _cell(view: str, write: str, form: str):
    api, expr = VIEWS[view]
    if form == "visible":
        if write == "iadd":
            return None  # `y.t() += 2.0` is no Python
        body = WRITES[write].format(v=expr) + "\n"
        out = "out = y"
    else:
        body = f"v = {expr}\n" + WRITES[write].format(v="v") + "\n"
        out = "out = (y, v * 1.0)"
    if view in RAISES:
        body = "try:\n" + "".join(f"    {line}\n" for line in body.splitlines()) + \
               "    raised = 0.0\nexcept RuntimeError:\n    raised = 1.0\n"
        out = "out = (y, raised)"
    return case(A, api, Y + body + out, {"x": "f32[3,4]"}, variant=f"{view}/{write}/{form}", grad=False,
                xfail=MARKED.get((view, write), ""))


CASES = [c for view in VIEWS for write in WRITES for form in ("visible", "variable")
         if (c := _cell(view, write, form)) is not None]

#: idioms of public torch code that write through views (read in NVlabs/stylegan2-ada-pytorch,
#: huggingface/transformers' ``_init_weights``, timm's weight adaptation); each on plain tensors
IDIOMS = [
    # transformers: ``module.weight.data[module.padding_idx].zero_()``
    case(A, "torch.Tensor.data", "w = x.clone()\nw.data[2].zero_()\nout = w", {"x": "f32[5,3]"},
         variant="idiom/padding_row_zero", grad=False),
    # weight surgery: copy old weights into the first input channels, under no_grad
    case(A, "torch.Tensor.copy_", "w = torch.zeros(4, 6)\nwith torch.no_grad():\n    w[:, :3].copy_(x)\n"
         "    w[:, 3:].copy_(x.flip(1) * 0.5)\nout = w", {"x": "f32[4,3]"}, variant="idiom/copy_into_slices",
         grad=False),
    # an EMA through chunks of one flat parameter (``a, b = p.chunk(2)``)
    case(A, "torch.Tensor.chunk", "p = x.clone()\nq = x * 0.5\nwith torch.no_grad():\n"
         "    for pe, pq in zip(p.chunk(2), q.chunk(2)):\n        pe.copy_(pq.lerp(pe, 0.9))\nout = p",
         {"x": "f32[6,3]"}, variant="idiom/ema_through_chunks", grad=False),
    # StyleGAN2-ADA's truncation: ``x[:, :cutoff] = w_avg.lerp(x[:, :cutoff], psi)``; its w_avg update
    case(A, "torch.Tensor.lerp", "w = x.clone()\nw_avg = x[0, 0].clone()\nw_avg.copy_(w.detach().mean(dim=(0, 1))"
         ".lerp(w_avg, 0.99))\nw[:, :2] = w_avg.lerp(w[:, :2], 0.7)\nout = (w, w_avg)", {"x": "f32[3,4,5]"},
         variant="idiom/truncation", grad=False),
    # a gradient kept differentiable through an in-place write into a slice of a computed tensor
    case(A, "torch.Tensor.__getitem__", "y = x * 2.0\ny[:, 1].mul_(3.0)\nout = y.sum(dim=0) * x[0]",
         {"x": "f32[3,4]"}, variant="idiom/inplace_slice_in_graph"),
]
CASES += IDIOMS
