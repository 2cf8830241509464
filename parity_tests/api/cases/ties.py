"""Gradients at ties: every op whose gradient torch sends to ONE element among equal values (max
pools, ``max``/``min`` with ``dim``) or splits among them (full ``max``/``amax``/``median``,
``maximum``/``minimum``).

Random inputs almost never tie, so each case builds its ties the way networks do:
``near`` (a nearest-upsampled map: 2x2 blocks of one value, what a decoder feeds a VGG loss),
``flat`` (one value per channel, whose gradient flows back through a mean) and ``relu`` (ReLU's
zeros plus a per-channel bias ``b``: a conv bias after a dead ReLU).  A port that gives the full
gradient to every tied maximum multiplies the gradient of ``x`` and ``b`` by the tie count.
"""
from ..case import case

A = "ties"
# Input shapes per spatial rank (before the 2x nearest upsampling of ``near``) and the bias shape.
X = {1: "f32[2,3,4]", 2: "f32[2,3,4,4]", 3: "f32[1,2,2,3,3]"}
B = {1: "f32[3,1]", 2: "f32[3,1,1]", 3: "f32[2,1,1,1]"}
SPATIAL = {1: "-1", 2: "(-2, -1)", 3: "(-3, -2, -1)"}


def _tied(kind: str, rank: int) -> str:
    """Source that builds the tied map ``t`` from ``x`` (and ``b``)."""
    if kind == "near":
        return "t = F.interpolate(x, scale_factor=2, mode='nearest')\n"
    if kind == "flat":
        return f"t = x.mean({SPATIAL[rank]}, keepdim=True) + 0 * torch.cat([x, x], -1)\n"
    return "t = F.relu(torch.cat([x, x], -1)) + b\n"


def tied(api: str, call: str, rank: int, variant: str, outputs=("out",), setup: str = ""):
    """One case per tie kind: ``call`` pools ``t``."""
    out = []
    for kind in ("near", "flat", "relu"):
        inputs = {"x": X[rank], **({"b": B[rank]} if kind == "relu" else {})}
        out.append(case(A, api, _tied(kind, rank) + call, inputs, variant=f"{variant}_{kind}".strip("_"),
                        outputs=outputs, setup=setup))
    return out


POOLS = [
    *tied("torch.nn.functional.max_pool1d", "out = F.max_pool1d(t, 3, 2, 1, ceil_mode=True)", 1, "ceil_pad"),
    *tied("torch.nn.functional.max_pool1d", "out, i = F.max_pool1d(t, 2, 1, dilation=2, return_indices=True)", 1,
          "dilation_indices", ("out", "i")),
    *tied("torch.nn.functional.max_pool2d", "out = F.max_pool2d(t, 2)", 2, ""),
    *tied("torch.nn.functional.max_pool2d", "out = F.max_pool2d(t, 3, 2, 1, ceil_mode=True)", 2, "ceil_pad"),
    *tied("torch.nn.functional.max_pool2d", "out, i = F.max_pool2d(t, 3, 1, 1, dilation=2, return_indices=True)", 2,
          "dilation_indices", ("out", "i")),
    *tied("torch.nn.functional.max_pool3d", "out = F.max_pool3d(t, 2, 1, 1)", 3, "overlap_pad"),
    *tied("torch.nn.functional.max_pool3d", "out, i = F.max_pool3d(t, (1, 3, 3), 2, ceil_mode=True, "
          "return_indices=True)", 3, "ceil_indices", ("out", "i")),
    *tied("torch.nn.functional.adaptive_max_pool1d", "out, i = F.adaptive_max_pool1d(t, 3, return_indices=True)", 1,
          "indices", ("out", "i")),
    *tied("torch.nn.functional.adaptive_max_pool2d", "out = F.adaptive_max_pool2d(t, (3, 5))", 2, "nondivisible"),
    *tied("torch.nn.functional.adaptive_max_pool3d", "out, i = F.adaptive_max_pool3d(t, (1, 3, 2), "
          "return_indices=True)", 3, "indices", ("out", "i")),
    *tied("torch.nn.MaxPool1d", "out = m(t)", 1, "", setup="m = nn.MaxPool1d(3, 1, 1)"),
    *tied("torch.nn.MaxPool2d", "out = m(t)", 2, "", setup="m = nn.MaxPool2d(2, ceil_mode=True)"),
    *tied("torch.nn.MaxPool3d", "out = m(t)", 3, "", setup="m = nn.MaxPool3d(2, 1)"),
    *tied("torch.nn.AdaptiveMaxPool1d", "out = m(t)", 1, "", setup="m = nn.AdaptiveMaxPool1d(5)"),
    *tied("torch.nn.AdaptiveMaxPool2d", "out = m(t)", 2, "", setup="m = nn.AdaptiveMaxPool2d((3, 3))"),
    *tied("torch.nn.AdaptiveMaxPool3d", "out = m(t)", 3, "", setup="m = nn.AdaptiveMaxPool3d(2)"),
    # torch's rule beyond ties: the last NaN of a window wins; an all -inf window (padding
    # around it) keeps its first in-bounds element
    case(A, "torch.nn.functional.max_pool2d", "t = torch.where(x > 0.8, torch.full_like(x, float('nan')), x)\n"
         "out, i = F.max_pool2d(t, 3, 1, 1, return_indices=True)", {"x": "f32[2,3,6,6]"}, variant="nan",
         outputs=("out", "i")),
    case(A, "torch.nn.functional.max_pool2d", "t = torch.where(x > -0.3, torch.full_like(x, float('-inf')), x)\n"
         "out, i = F.max_pool2d(t, 3, 2, 1, ceil_mode=True, return_indices=True)", {"x": "f32[2,3,6,6]"},
         variant="neg_inf", outputs=("out", "i")),
    # max_unpool: the pool's indices (ties included) place the values; its gradient is a gather.
    *tied("torch.nn.functional.max_unpool1d", "o, i = F.max_pool1d(t, 2, return_indices=True)\n"
          "out = F.max_unpool1d(o, i, 2)", 1, ""),
    *tied("torch.nn.functional.max_unpool2d", "o, i = F.max_pool2d(t, 3, 2, 1, return_indices=True)\n"
          "out = F.max_unpool2d(o, i, 3, 2, 1, output_size=t.shape[-2:])", 2, "output_size"),
    *tied("torch.nn.functional.max_unpool3d", "o, i = F.max_pool3d(t, 2, return_indices=True)\n"
          "out = F.max_unpool3d(o, i, 2, output_size=t.shape[-3:])", 3, "output_size"),
    *tied("torch.nn.MaxUnpool1d", "o, i = F.max_pool1d(t, 2, return_indices=True)\nout = m(o, i)", 1, "",
          setup="m = nn.MaxUnpool1d(2)"),
    *tied("torch.nn.MaxUnpool2d", "o, i = F.max_pool2d(t, 2, return_indices=True)\nout = m(o, i)", 2, "",
          setup="m = nn.MaxUnpool2d(2)"),
    *tied("torch.nn.MaxUnpool3d", "o, i = F.max_pool3d(t, 2, return_indices=True)\nout = m(o, i, t.shape)", 3, "",
          setup="m = nn.MaxUnpool3d(2)"),
]

T = {"x": "tie[4,6]"}  # float32 integers -2..2: every row has tied extremes
T2 = {"x": "tie[4,6]", "y": "tie[4,6]"}


def red(api, src, inputs=T, variant="", **kw):
    """A selection on tied values (``tie`` inputs, each a separate leaf)."""
    return case(A, api, src, inputs, variant=variant, **kw)


SELECTIONS = [
    # torch: the whole gradient to the returned index (the first extreme)
    red("torch.max", "out, i = torch.max(x, 1)", variant="dim", outputs=("out", "i")),
    red("torch.min", "out, i = torch.min(x, 0, keepdim=True)", variant="dim_keepdim", outputs=("out", "i")),
    red("torch.Tensor.max", "out, i = x.max(dim=-1)", variant="dim", outputs=("out", "i")),
    red("torch.Tensor.min", "out = x.min(1)[0]", variant="dim"),
    # torch: split evenly among the tied extremes
    red("torch.max", "out = torch.max(x)", variant="full"),
    red("torch.min", "out = x.min()", variant="full"),
    red("torch.amax", "out = torch.amax(x, 1)"),
    red("torch.amin", "out = torch.amin(x, (0, 1), keepdim=True)"),
    red("torch.Tensor.amax", "out = x.amax(dim=0)"),
    red("torch.median", "out = torch.median(x)", variant="full"),
    red("torch.nanmedian", "out = torch.nanmedian(x)", variant="full"),
    # torch: half to each side where the two are equal
    red("torch.maximum", "out = torch.maximum(x, y)", T2, variant="ties"),
    red("torch.minimum", "out = torch.minimum(x, y)", T2, variant="ties"),
    red("torch.Tensor.maximum", "out = x.maximum(y)", T2, variant="ties"),
    red("torch.max", "out = torch.max(x, y)", T2, variant="pair"),
    red("torch.fmax", "out = torch.fmax(x, y)", T2, variant="ties"),
    red("torch.clamp", "out = torch.clamp(x, min=y)", T2, variant="tensor_bound"),
    # torch: zero gradient at a number bound and at ReLU's 0
    red("torch.clamp", "out = torch.clamp(x, -1, 1)", variant="at_bounds"),
    red("torch.nn.functional.relu", "out = F.relu(x)", variant="at_zero"),
    red("torch.nn.functional.relu6", "out = F.relu6(x * 3)", variant="at_bounds"),
    red("torch.nn.functional.hardtanh", "out = F.hardtanh(x)", variant="at_bounds"),
    # torch: abs's gradient is sign(x), nothing at 0 (an L1 loss between equal values)
    red("torch.abs", "out = torch.abs(x)", variant="at_zero"),
    red("torch.Tensor.abs", "out = x.abs()", variant="at_zero"),
    red("torch.Tensor.abs", "out = abs(x - y)", T2, variant="builtin_ties"),
    red("torch.nn.functional.l1_loss", "out = F.l1_loss(x, y)", T2, variant="ties"),
    red("torch.nn.L1Loss", "out = m(x, y)", T2, variant="ties", setup="m = nn.L1Loss(reduction='sum')"),
]

CASES = [*POOLS, *SELECTIONS]
