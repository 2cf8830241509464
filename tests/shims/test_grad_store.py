"""The gradient store (``shims.autograd``): what the torch-vs-converted parity cases cannot show.

* a converted GAN loop that edits gradients (``nan_to_num_``, clipping, ``requires_grad_``
  toggles, an R1 term from ``autograd.grad(create_graph=True)``) runs 200 iterations with
  Jittor's live graph flat (``shims.GraphWatch``);
* the registry of explicit leaves forgets a Var once nothing else holds it, and the module
  list forgets dead modules (no leak from leaves made in a loop);
* torch's errors: ``backward()`` of a non-scalar without ``gradient``, of a loss no leaf
  requiring grad reaches, a ``.grad`` of the wrong shape, a hook on a Var that does not
  require grad;
* ``opt.step(loss)`` (the fused form) reaches a converted optimizer subclass whose ``step``
  takes a closure;
* what the store does for speed keeps its semantics: ``grads_reached`` restores the caller's
  ``log_silent``, and a hook registered after backward passes ran still runs.
"""
import gc

import numpy as np
import pytest

import shims
import jittor as jt
from porter import convert_source
from shims import autograd as store

GAN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 16)
        self.fc2 = nn.Linear(16, n_out)

    def forward(self, x):
        return self.fc2(F.leaky_relu(self.fc1(x), 0.2))


def make():
    G, D = Net(8, 4), Net(4, 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.99))
    return G, D, opt_g, opt_d


def iteration(G, D, opt_g, opt_d, z, real):
    D.requires_grad_(False)
    opt_g.zero_grad(set_to_none=True)
    F.softplus(-D(G(z))).mean().backward()
    for p in G.parameters():
        p.grad.nan_to_num_(nan=0, posinf=1e5, neginf=-1e5)
    torch.nn.utils.clip_grad_norm_(G.parameters(), 1.0)
    opt_g.step()
    D.requires_grad_(True)
    opt_d.zero_grad()
    F.softplus(D(G(z).detach())).mean().backward()
    real = real.detach().requires_grad_(True)
    logits = D(real)
    r1, = torch.autograd.grad(outputs=[logits.sum()], inputs=[real], create_graph=True)
    (F.softplus(-logits) + r1.square().sum(1, keepdim=True)).mean().backward()
    for p in D.parameters():
        if p.grad is not None:
            p.grad.mul_(0.5)
    D.fc2.bias.grad = None
    opt_d.step()
'''


def _converted(source: str, name: str):
    result = convert_source(source, f"{name}.py")
    assert result.report.error is None and not result.report.unsupported, \
        [(u.code, u.api, u.reason) for u in result.report.unsupported]
    ns = {"__name__": name}
    exec(compile(result.code, f"<{name} converted>", "exec"), ns)
    return ns


def test_gan_loop_editing_gradients_keeps_the_graph_flat():
    gan = _converted(GAN, "gan")
    G, D, opt_g, opt_d = gan["make"]()
    rng = np.random.default_rng(0)
    z = jt.array(rng.standard_normal((6, 8)).astype(np.float32))
    real = jt.array(rng.standard_normal((6, 4)).astype(np.float32))
    with shims.GraphWatch(warmup=10, patience=20) as watch:  # raises GraphGrowthError
        for _ in range(200):
            gan["iteration"](G, D, opt_g, opt_d, z, real)
            watch.step()
    lived = [h["lived_vars"] for h in watch.history]
    assert max(lived[100:]) <= max(lived[10:100]), lived[::20]
    assert np.isfinite(G.fc1.weight.numpy()).all() and D.fc2.bias.grad is None


def test_explicit_leaves_are_forgotten_with_their_vars():
    gc.collect()
    store.leaves()
    before = len(store._explicit)
    for _ in range(300):
        x = jt.ones(3).requires_grad_()
        (x * 2).sum().backward()
        assert x.grad is not None
    del x
    store.leaves()  # prunes
    assert len(store._explicit) <= before + 1


def test_dead_modules_are_forgotten():
    store.leaves()
    before = len(store._modules)
    for _ in range(500):
        jt.nn.Linear(2, 2)
    store.leaves()
    assert len(store._modules) <= before + 1


def test_torch_errors():
    x = jt.ones(3).requires_grad_()
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        (jt.ones(3).stop_grad() * 2).sum().backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        (x.detach() * 2).sum().backward()
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = jt.ones(4)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        jt.ones(2).stop_grad().register_hook(lambda g: g)


def test_fused_step_reaches_a_subclass_step_with_closure():
    source = '''
import torch


class PlainSGD(torch.optim.Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, dict(lr=lr))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data.add_(p.grad, alpha=-group["lr"])


def train(w, opt):
    for _ in range(3):
        opt.zero_grad()
        ((w - 1.0) ** 2).sum().backward()
        opt.step()
'''
    ns = _converted(source, "plain_sgd")
    assert ".step(" in convert_source(source, "p.py").code.split("def train")[1]
    w = jt.zeros(2).requires_grad_()
    ns["train"](w, ns["PlainSGD"]([w], lr=0.25))
    # w <- w - 0.25 * 2 (w - 1): 0 -> 0.5 -> 0.75 -> 0.875
    np.testing.assert_allclose(w.numpy(), [0.875, 0.875], rtol=1e-6)


def test_deepcopy_keeps_requires_grad_and_grad():
    import copy
    m = jt.nn.Linear(3, 2)
    m.weight.requires_grad = False
    (m(jt.ones(1, 3)) ** 2).sum().backward()
    m2 = copy.deepcopy(m)  # G_ema = copy.deepcopy(G): torch copies requires_grad and .grad
    assert (m2.weight.requires_grad, m2.bias.requires_grad) == (False, True)
    assert m2.weight.grad is None and m2.bias.grad is not m.bias.grad
    np.testing.assert_array_equal(m2.bias.grad.numpy(), m.bias.grad.numpy())


@pytest.mark.parametrize("silent", [0, 1])
def test_grads_reached_tells_unreached_targets_and_restores_log_silent(silent):
    """grads_reached silences Jittor's "doesn't have gradient" line with ``log_silent`` for the
    call only: the caller's setting comes back, whatever it was."""
    a, b, c = jt.ones(2), jt.ones(3), jt.ones(2)
    saved = jt.flags.log_silent
    jt.flags.log_silent = silent
    try:
        grads, reached = store.grads_reached((a * 3).sum() + (c * 2).sum(), [a, b, c], retain_graph=True)
        assert jt.flags.log_silent == silent
    finally:
        jt.flags.log_silent = saved
    assert reached == [True, False, True]
    np.testing.assert_array_equal(grads[0].numpy(), [3, 3])
    np.testing.assert_array_equal(grads[1].numpy(), [0, 0, 0])


def test_a_hook_registered_after_backward_runs_on_the_next():
    """backward looks for leaf hooks once any Var has one (a missed attribute lookup costs an
    exception per leaf otherwise): the first hook registered mid-training still runs."""
    w = jt.ones(2).requires_grad_()
    (w * 2).sum().backward()
    w.grad = None
    seen = []
    handle = w.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    (w * 2).sum().backward()
    handle.remove()
    np.testing.assert_array_equal(seen[0], [2, 2])
    np.testing.assert_array_equal(w.grad.numpy(), [20, 20])
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [22, 22])
