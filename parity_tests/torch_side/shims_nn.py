"""Torch side of ``parity_tests/test_shims_nn.py``: every ``shims.nn`` case in one process.

Each case writes ``<case>.npz`` with its inputs, torch's output and the gradients of
``(out * cot).sum()`` (``cot`` a fixed random cotangent) w.r.t. the input and parameters.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = None
RNG = np.random.default_rng(0)


def arr(*shape, scale=1.0, loc=0.0):
    return (RNG.standard_normal(shape) * scale + loc).astype(np.float32)


def run(name, fn, x, params=(), **extra):
    """Forward ``fn(x)``, backward with a random cotangent, save everything as name.npz."""
    xt = torch.tensor(x, requires_grad=True)
    out = fn(xt)
    cot = arr(*out.shape)
    (out * torch.tensor(cot)).sum().backward()
    res = {"x": x, "out": out.detach().numpy(), "cot": cot, "gx": xt.grad.numpy()}
    for pname, p in params:
        res["p_" + pname] = p.detach().numpy()
        res["g_" + pname] = p.grad.numpy()
    res.update({k: np.asarray(v) for k, v in extra.items()})
    np.savez(os.path.join(OUT, name + ".npz"), **res)


def pooling():
    x = arr(2, 3, 9, 11)
    run("max_ceil", lambda t: F.max_pool2d(t, (2, 3), 2, 1, ceil_mode=True), x)
    run("max_plain", lambda t: nn.MaxPool2d(3, 2, 1)(t), x)
    run("max_dil", lambda t: F.max_pool2d(t, [3, 2], [1, 2], [1, 0], dilation=2), x)
    run("max_full", lambda t: nn.MaxPool2d(7)(t), arr(2, 3, 7, 7))
    run("max_3d", lambda t: F.max_pool2d(t, 2), arr(3, 6, 6))
    run("avg_nopad", lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False), x)
    run("avg_pad", lambda t: F.avg_pool2d(t, 3, 2, 1), x)
    run("avg_ceil", lambda t: F.avg_pool2d(t, (2, 3), 2, 1, ceil_mode=True, count_include_pad=False), x)
    run("avg_ceil_pad", lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True), arr(2, 3, 10, 10))
    run("avg_div", lambda t: nn.AvgPool2d(2, divisor_override=3)(t), x)
    run("avg_full", lambda t: nn.AvgPool2d(7)(t), arr(2, 3, 7, 7))
    run("aavg_34", lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x)
    run("aavg_57", lambda t: nn.AdaptiveAvgPool2d((5, 7))(t), x)
    run("aavg_up", lambda t: F.adaptive_avg_pool2d(t, 6), arr(2, 3, 4, 4))
    run("aavg_none", lambda t: F.adaptive_avg_pool2d(t, (None, 4)), x)
    run("amax_34", lambda t: F.adaptive_max_pool2d(t, (3, 4)), x)
    run("amax_57", lambda t: nn.AdaptiveMaxPool2d((5, 7))(t), x)


def norms():
    # mean 100 / std 0.1: one-pass variance (Jittor's own) breaks here, two-pass does not
    xs = [arr(4, 3, 5, 6, scale=0.1, loc=100.0), arr(4, 3, 5, 6), arr(4, 3, 5, 6, scale=2.0, loc=1.0)]
    for momentum in (0.1, None):
        torch.manual_seed(0)
        bn = nn.BatchNorm2d(3, momentum=momentum)
        with torch.no_grad():
            bn.weight.copy_(torch.tensor(arr(3)))
            bn.bias.copy_(torch.tensor(arr(3)))
        w0, b0 = bn.weight.detach().numpy().copy(), bn.bias.detach().numpy().copy()
        outs = {}
        for i, x in enumerate(xs[:2]):
            outs[f"train{i}"] = bn(torch.tensor(x)).detach().numpy()
        tag = "bn" if momentum else "bn_cma"
        bn.train()
        run(tag, bn, xs[2], [("weight", bn.weight), ("bias", bn.bias)], w0=w0, b0=b0,
            x0=xs[0], x1=xs[1], **outs)
        bn.eval()
        with torch.no_grad():
            ev = bn(torch.tensor(xs[1])).numpy()
        np.savez(os.path.join(OUT, tag + "_state.npz"), running_mean=bn.running_mean.numpy(),
                 running_var=bn.running_var.numpy(), nbt=bn.num_batches_tracked.numpy(), eval=ev)
    x = arr(2, 3, 5, 6, scale=0.1, loc=100.0)
    run("in_plain", nn.InstanceNorm2d(3), x)
    inorm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    with torch.no_grad():
        inorm.weight.copy_(torch.tensor(arr(3)))
    w0 = inorm.weight.detach().numpy().copy()
    run("in_track", inorm, x, [("weight", inorm.weight), ("bias", inorm.bias)], w0=w0)
    inorm.eval()
    with torch.no_grad():
        ev = inorm(torch.tensor(xs[1][:2])).numpy()
    np.savez(os.path.join(OUT, "in_track_state.npz"), running_mean=inorm.running_mean.numpy(),
             running_var=inorm.running_var.numpy(), eval=ev, x_eval=xs[1][:2])
    ln = nn.LayerNorm([5, 6])
    with torch.no_grad():
        ln.weight.copy_(torch.tensor(arr(5, 6)))
    run("ln", ln, x, [("weight", ln.weight), ("bias", ln.bias)])
    gn = nn.GroupNorm(3, 6)
    with torch.no_grad():
        gn.weight.copy_(torch.tensor(arr(6)))
    run("gn", gn, arr(2, 6, 4, 5, scale=0.1, loc=100.0), [("weight", gn.weight), ("bias", gn.bias)])


def convs():
    x = arr(2, 4, 5, 5)
    w = torch.tensor(arr(4, 3, 3, 3), requires_grad=True)   # in=4, out/g=3, groups=2 -> out=6
    b = torch.tensor(arr(6), requires_grad=True)
    run("convt_g2", lambda t: F.conv_transpose2d(t, w, b, stride=2, padding=1, output_padding=1, groups=2),
        x, [("w", w), ("b", b)])
    # StyleGAN2 up-modconv: batch folded into groups, in/G=4 != out/G=2
    xs = arr(1, 12, 4, 4)
    ws = torch.tensor(arr(12, 2, 3, 3), requires_grad=True)
    run("convt_sg2", lambda t: F.conv_transpose2d(t, ws, stride=2, padding=0, groups=3), xs, [("w", ws)])
    torch.manual_seed(0)
    m = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
    run("convt_mod", lambda t: m(t, output_size=[10, 10]), x, [("weight", m.weight), ("bias", m.bias)])
    torch.manual_seed(0)
    c = nn.utils.weight_norm(nn.Conv2d(4, 5, 3))
    np.savez(os.path.join(OUT, "wn_keys.npz"), keys=np.array(list(c.state_dict().keys())),
             weight_g=c.weight_g.detach().numpy(), weight_v=c.weight_v.detach().numpy(),
             bias=c.bias.detach().numpy())
    run("wn", c, x, [("weight_g", c.weight_g), ("weight_v", c.weight_v), ("bias", c.bias)])


def resizing():
    x = arr(2, 3, 9, 11)
    cases = {
        "up_nearest2": dict(scale_factor=2),
        "up_nearest_size": dict(size=(7, 5)),
        "up_nearest15": dict(scale_factor=1.5),
        "up_nearest07": dict(scale_factor=0.7),
        "up_nexact": dict(scale_factor=1.7, mode="nearest-exact"),
        "up_bil05": dict(scale_factor=0.5, mode="bilinear"),
        "up_bil15": dict(scale_factor=1.5, mode="bilinear"),
        "up_bil_size_ac": dict(size=(13, 4), mode="bilinear", align_corners=True),
        "up_bil_recompute": dict(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True),
        "up_area": dict(size=(4, 5), mode="area"),
        "up_tuple": dict(scale_factor=(2, 0.5), mode="bilinear"),
    }
    for name, kw in cases.items():
        run(name, lambda t, kw=kw: F.interpolate(t, **kw), x)
    run("up_linear", lambda t: F.interpolate(t, scale_factor=2.5, mode="linear"), arr(2, 3, 7))
    run("upsample_size", lambda t: nn.Upsample(size=(5, 8))(t), x)
    run("leaky", lambda t: F.leaky_relu(t, negative_slope=0.2), x)
    run("leaky_mod", lambda t: nn.LeakyReLU(0.3)(t), x)
    run("reflect", lambda t: nn.ReflectionPad2d((1, 2, 3, 0))(t), x)


def clipping():
    grads = [arr(3, 4), arr(5), arr(2, 2)]
    for name, max_norm, norm_type in (("clip2", 1.0, 2.0), ("clipinf", 0.5, float("inf")), ("clipbig", 1e6, 2.0)):
        ps = [torch.zeros(g.shape, requires_grad=True) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = torch.tensor(g)
        total = torch.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        np.savez(os.path.join(OUT, name + ".npz"), total=total.numpy(),
                 **{f"g{i}": g for i, g in enumerate(grads)},
                 **{f"c{i}": p.grad.numpy() for i, p in enumerate(ps)})


def structure():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.LeakyReLU(0.2))
            self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 3)})
            self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
            self.register_buffer("kernel", torch.ones(3))
            self.register_buffer("scratch", torch.zeros(2), persistent=False)

    net = Net()
    net.body.insert(1, nn.Identity())
    net.blocks.append(nn.Linear(2, 2))
    np.savez(os.path.join(OUT, "structure.npz"), keys=np.array(list(net.state_dict().keys())),
             params=np.array([n for n, _ in net.named_parameters()]),
             buffers=np.array([n for n, _ in net.named_buffers()]),
             sliced=np.array([type(m).__name__ for m in net.body[1:3]]))


def tensor_attrs():
    """Which tensors assigned to a module become state: only Parameters and buffers, wherever
    they are assigned (a trainer keeps its losses on ``self`` after ``__init__``)."""
    class Trainer(nn.Module):
        def __init__(self):
            super().__init__()
            self.gen = nn.Linear(2, 2)
            self.gain = nn.Parameter(torch.ones(2))
            self.register_buffer("count", torch.zeros(1))

        def forward(self, x):
            self.hidden = self.gen(x)
            return self.hidden * self.gain

    t = Trainer()
    t.loss_gen = t(torch.ones(1, 2)).mean()
    t.anchor = torch.ones(2)
    t.extra = nn.Parameter(torch.zeros(2))
    t.count = t.count + 1
    np.savez(os.path.join(OUT, "tensor_attrs.npz"), keys=np.array(list(t.state_dict().keys())),
             params=np.array([n for n, _ in t.named_parameters()]),
             buffers=np.array([n for n, _ in t.named_buffers()]))


def main():
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    OUT = ap.parse_args().out
    os.makedirs(OUT, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    pooling()
    norms()
    convs()
    resizing()
    clipping()
    structure()
    tensor_attrs()


if __name__ == "__main__":
    main()
