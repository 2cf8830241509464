"""Torch snippets for the converter rules' executable parity tests.

This file is plain torch code.  ``rules_train.py`` runs it in ``.venv-torch``;
``parity_tests/test_rules_parity.py`` converts it with ``porter.convert_source`` and runs the
converted code in ``.venv``.  Every case takes tensors (made from the same numpy arrays on
both sides) and returns a dict of tensors, so the snippets need no numpy<->tensor calls.
The idioms are the ones the rules rewrite: training-step forms, ``.data`` writes, ``eval()``, buffers and
non-parameter tensor attributes, ``autograd.grad`` with ``create_graph`` and a custom Function;
and torch's gradient model (``.grad`` edits, accumulation without ``zero_grad``, frozen
networks and ``requires_grad_`` toggles, hooks), which converts as written.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 3
LR = 0.01


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class Head(MLP):
    """A subclass calling its base's forward (forward -> execute through local classes)."""

    def forward(self, x):
        return super().forward(x) * 2.0 + MLP.forward(self, x)


def _mlp(state):
    model = MLP()
    model.load_state_dict(state)
    return model


def _params(prefix, model):
    return {prefix + name: p.detach() for name, p in model.named_parameters()}


def train_fused(state, x, y):
    """opt.zero_grad(); loss.backward(); opt.step() -> opt.step(loss)."""
    model = _mlp(state)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for _ in range(STEPS):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return _params("", model)


def train_split_clip(state, x, y):
    """zero_grad ... backward; clip_grad_norm_; step (clipping active: max_norm is small)."""
    model = _mlp(state)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    norms = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        opt.step()
        norms.append(norm.detach().reshape(1))
    out = _params("", model)
    out["norms"] = torch.cat(norms)
    return out


def train_multi_opt(state, x, y):
    """One backward whose gradients feed two optimizers (StarGAN v2)."""
    gen = _mlp(state)
    head = nn.Linear(2, 1)
    head.load_state_dict({"weight": state["fc2.weight"][:1, :2], "bias": state["fc2.bias"][:1]})
    opt_gen = torch.optim.Adam(gen.parameters(), lr=LR)
    opt_head = torch.optim.SGD(head.parameters(), lr=LR)
    for _ in range(STEPS):
        opt_gen.zero_grad()
        opt_head.zero_grad()
        loss = (head(gen(x)) - y[:, :1]).abs().mean()
        loss.backward()
        opt_gen.step()
        opt_head.step()
    out = _params("gen.", gen)
    out.update(_params("head.", head))
    return out


def train_accumulate(state, x, y):
    """Two backward() calls accumulate before one step() (StyleGAN2-ADA's rounds)."""
    model = _mlp(state)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for _ in range(STEPS):
        opt.zero_grad()
        first = ((model(x[:3]) - y[:3]) ** 2).mean()
        first.backward()
        second = (model(x[3:]) - y[3:]).abs().mean()
        second.backward()
        opt.step()
    return _params("", model)


def _backward_inside(model, x, y):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()  # HiSD: the step happens elsewhere
    return loss


def train_bare_backward(state, x, y):
    """backward() in a helper, step() in the caller: no optimizer is in sight of the backward."""
    model = _mlp(state)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for _ in range(STEPS):
        opt.zero_grad()
        _backward_inside(model, x, y)
        opt.step()
    return _params("", model)


def ema_through_data(state, x, y):
    """EMA weights written through .data (copy_, in-place mul_) after each SGD step."""
    model = _mlp(state)
    ema = _mlp(state)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(STEPS):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for p, p_ema in zip(model.parameters(), ema.parameters()):
                p_ema.data.copy_(p.data.lerp(p_ema.detach(), 0.9))
    ema.fc1.weight.data.mul_(0.5)
    return _params("", ema)


def eval_keeps_grads(state, x, y):
    """MCCNet: decoder.eval() before training; torch still trains the decoder."""
    decoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    decoder.load_state_dict({"0.weight": state["fc1.weight"], "0.bias": state["fc1.bias"],
                             "2.weight": state["fc2.weight"], "2.bias": state["fc2.bias"]})
    decoder.eval()
    head = Head()
    head.load_state_dict(state)
    head.eval()
    opt = torch.optim.Adam(list(decoder.parameters()) + list(head.parameters()), lr=LR)
    for _ in range(STEPS):
        loss = ((decoder(x) - y) ** 2).mean() + (head(x) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    out = _params("decoder.", decoder)
    out.update(_params("head.", head))
    return out


class AdaIN(nn.Module):
    """HiSD-style AdaIN: weight/bias are set from another network's output every step."""

    def __init__(self, n):
        super().__init__()
        self.weight = None
        self.bias = None
        self.register_buffer("running_mean", torch.zeros(n))
        self.register_buffer("offset", torch.ones(n) * 0.5, persistent=False)

    def forward(self, x):
        self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(0).detach()
        centred = x - x.mean(0, keepdim=True)
        return centred * self.weight + self.bias + self.offset


def buffers_and_attrs(state, x, y):
    """Buffers stay untrained and in state_dict (persistent only); the AdaIN attributes are no
    parameters, yet gradients flow through them into the mapping network."""
    mapper = nn.Linear(4, 4)
    mapper.load_state_dict({"weight": state["fc1.weight"][:4], "bias": state["fc1.bias"][:4]})
    norm = AdaIN(2)
    opt = torch.optim.Adam(list(mapper.parameters()) + list(norm.parameters()), lr=LR)
    for _ in range(STEPS):
        style = mapper(x).mean(0)
        norm.weight = style[:2]
        norm.bias = style[2:]
        loss = ((norm(y) - 1.0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    out = _params("mapper.", mapper)
    out.update({"state." + k: v for k, v in norm.state_dict().items()})
    out["n_norm_params"] = torch.zeros(len(list(norm.parameters())))
    return out


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(F.softplus(self.fc1(x)))


def r1_penalty(state, x, y):
    """R1 (StyleGAN2): weight gradients of a penalty on d critic / d input (second order), and a
    path-length-style penalty with random grad_outputs."""
    critic = Critic()
    critic.load_state_dict({"fc1.weight": state["fc1.weight"], "fc1.bias": state["fc1.bias"],
                            "fc2.weight": state["fc2.weight"][:1], "fc2.bias": state["fc2.bias"][:1]})
    real = x.detach().requires_grad_(True)
    logits = critic(real)
    r1_grads, = torch.autograd.grad(outputs=[logits.sum()], inputs=[real], create_graph=True,
                                    only_inputs=True)
    r1 = r1_grads.square().sum(1).mean()
    params = list(critic.parameters())[:3]  # the last bias does not reach d critic / d input
    r1_weight_grads = torch.autograd.grad(r1, params, retain_graph=True)
    weights = y[:, :1]
    pl_grads = torch.autograd.grad(outputs=logits, inputs=real, grad_outputs=weights,
                                   create_graph=True, retain_graph=True)[0]
    pl = (pl_grads ** 2).sum()
    pl_weight_grads = torch.autograd.grad(pl, params)
    out = {"r1_input_grad": r1_grads.detach(), "pl_input_grad": pl_grads.detach()}
    for name, g1, g2 in zip(["fc1.weight", "fc1.bias", "fc2.weight"], r1_weight_grads,
                            pl_weight_grads):
        out["r1." + name] = g1
        out["pl." + name] = g2
    opt = torch.optim.Adam(critic.parameters(), lr=LR)
    for _ in range(STEPS):
        real = x.detach().requires_grad_(True)
        logits = critic(real)
        grads, = torch.autograd.grad(outputs=[logits.sum()], inputs=[real], create_graph=True)
        loss = F.softplus(-logits).mean() + 5.0 * grads.square().sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    out.update(_params("trained.", critic))
    return out


class ScaleShift(torch.autograd.Function):
    """y = x * w + b with a hand-written backward."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        ctx.scale = 2.0
        return x * w * ctx.scale + b

    @staticmethod
    def backward(ctx, grad_out):
        x, w = ctx.saved_tensors
        grad_x = grad_out * w * ctx.scale if ctx.needs_input_grad[0] else None
        grad_w = (grad_out * x * ctx.scale).sum(0) if ctx.needs_input_grad[1] else None
        return grad_x, grad_w, grad_out.sum(0)


def custom_function(state, x, y):
    """Gradients through a custom autograd.Function match torch's."""
    w = state["fc1.bias"][:4].detach().requires_grad_(True)
    b = state["fc1.bias"].detach()[4:].requires_grad_(True)
    xin = x.detach().requires_grad_(True)
    out = ScaleShift.apply(xin, w, b)
    loss = (out * out).sum() + out.mean()
    gx, gw, gb = torch.autograd.grad(loss, [xin, w, b])
    return {"out": out.detach(), "grad_x": gx, "grad_w": gw, "grad_b": gb}


class NearestCode(torch.autograd.Function):
    """Straight-through nearest-code lookup (VQ-VAE's ``vq_st``): the indices leave marked
    non-differentiable, and backward still receives a gradient for them (torch's zeros)."""

    @staticmethod
    def forward(ctx, z, codebook):
        idx = ((z[:, None, :] - codebook[None]) ** 2).sum(-1).argmin(1)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx, codebook)
        return codebook.index_select(0, idx), idx

    @staticmethod
    def backward(ctx, grad_codes, grad_idx):
        idx, codebook = ctx.saved_tensors
        grad_book = torch.zeros_like(codebook).index_add_(0, idx, grad_codes)
        return grad_codes + grad_idx.sum(), grad_book


def custom_function_non_differentiable(state, x, y):
    """A custom Function with an output marked non-differentiable (``ctx.mark_non_differentiable``):
    gradients of the differentiable output, the marked output's ``requires_grad``."""
    z = x.detach().requires_grad_(True)
    book = state["fc1.weight"][:3].detach().requires_grad_(True)
    codes, idx = NearestCode.apply(z, book)
    loss = (codes ** 3).sum() + ((codes - z) ** 2).mean()
    gz, gbook = torch.autograd.grad(loss, [z, book])
    return {"codes": codes.detach(), "idx": idx.float(), "grad_z": gz, "grad_book": gbook,
            "idx_requires_grad": torch.tensor(float(idx.requires_grad))}


def train_no_zero_grad(state, x, y):
    """No zero_grad() between steps: torch accumulates gradients across steps (the port once
    gave what zero_grad() every step gives); a scheduler decays the learning rate."""
    model = _mlp(state)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    for _ in range(STEPS):
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        sched.step()
    out = _params("", model)
    out["grad.fc1.weight"] = model.fc1.weight.grad
    return out


def _critic(state):
    critic = Critic()
    critic.load_state_dict({"fc1.weight": state["fc1.weight"], "fc1.bias": state["fc1.bias"],
                            "fc2.weight": state["fc2.weight"][:1], "fc2.bias": state["fc2.bias"][:1]})
    return critic


def gan_phases(state, x, y):
    """StyleGAN2-ADA's training loop: each network frozen outside its phase (requires_grad_),
    losses accumulated by backward() (the generator's through the frozen critic, the critic's
    with an R1 term from autograd.grad(create_graph=True)), every .grad sanitized with
    nan_to_num_, the generator's clipped, and the step taken with the network frozen again."""
    gen = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    gen.load_state_dict({"0.weight": state["fc1.weight"][:4], "0.bias": state["fc1.bias"][:4]})
    critic = _critic(state)
    gen.requires_grad_(False)
    critic.requires_grad_(False)
    opt_g = torch.optim.Adam(gen.parameters(), lr=LR, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(critic.parameters(), lr=LR, betas=(0.0, 0.99))
    for _ in range(STEPS):
        for name, module, opt in (("G", gen, opt_g), ("D", critic, opt_d)):
            opt.zero_grad(set_to_none=True)
            module.requires_grad_(True)
            if name == "G":
                for half in (x[:3], x[3:]):
                    F.softplus(-critic(gen(half))).mean().mul(0.5).backward()
            else:
                F.softplus(critic(gen(x).detach())).mean().backward()
                real = (x.flip(0) * 0.5).detach().requires_grad_(True)
                logits = critic(real)
                r1, = torch.autograd.grad(outputs=[logits.sum()], inputs=[real], create_graph=True)
                (F.softplus(-logits) + 2.0 * r1.square().sum(1, keepdim=True)).mean().backward()
            module.requires_grad_(False)
            for p in module.parameters():
                if p.grad is not None:
                    p.grad.nan_to_num_(nan=0, posinf=1e5, neginf=-1e5)
            if name == "G":
                torch.nn.utils.clip_grad_norm_(module.parameters(), 0.5)
            opt.step()
    out = _params("gen.", gen)
    out.update(_params("critic.", critic))
    return out


def frozen_encoder(state, x, y):
    """MCCNet: an encoder frozen with p.requires_grad = False feeds a trained decoder; its
    features do not require grad (the model asserts it) and it never gets a gradient."""
    enc = nn.Linear(4, 4)
    enc.load_state_dict({"weight": state["fc1.weight"][:4], "bias": state["fc1.bias"][:4]})
    for p in enc.parameters():
        p.requires_grad = False
    dec = nn.Linear(4, 2)
    dec.load_state_dict({"weight": state["fc2.weight"][:, :4], "bias": state["fc2.bias"]})
    opt = torch.optim.Adam(dec.parameters(), lr=LR)
    for _ in range(STEPS):
        feat = torch.relu(enc(x))
        assert feat.requires_grad is False
        pred = dec(feat)
        assert pred.requires_grad
        loss = ((pred - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    out = _params("dec.", dec)
    out["enc_has_no_grad"] = torch.tensor([float(enc.weight.grad is None and enc.bias.grad is None)])
    return out


def hooks_and_manual_clip(state, x, y):
    """Hooks on the parameters (clamp) and on an intermediate (scale), its gradient retained,
    manual clipping through .grad, and a .grad set to None before the step."""
    model = _mlp(state)
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(-0.05, 0.05))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(STEPS):
        opt.zero_grad()
        h = torch.tanh(model.fc1(x))
        h.register_hook(lambda g: g * 2.0)
        h.retain_grad()
        loss = ((model.fc2(h) - y) ** 2).mean()
        loss.backward()
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        for p in model.parameters():
            p.grad.mul_(0.1 / (total + 1e-6))
        model.fc2.bias.grad = None
        opt.step()
    out = _params("", model)
    out["h.grad"] = h.grad
    return out


CASES = [train_fused, train_split_clip, train_multi_opt, train_accumulate, train_bare_backward,
         ema_through_data, eval_keeps_grads, buffers_and_attrs, r1_penalty, custom_function,
         custom_function_non_differentiable, train_no_zero_grad, gan_phases, frozen_encoder, hooks_and_manual_clip]
