"""``shims.nn.Module`` and containers: torch's buffer, gradient-flag, mode and state-dict rules
(behaviours Jittor 1.3.11 gets wrong, see jittor_gaps X3, X4 and the Modules table)."""
import numpy as np
import pytest

import shims
import jittor as jt
from jittor import nn as jnn
from shims import nn


class Blur(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("kernel", jt.array(np.full((3,), 0.25, np.float32)))
        self.scale = jt.ones(1)
        self.conv = jnn.Conv2d(2, 2, 3, padding=1)
        self.register_buffer("cache", jt.zeros(2), persistent=False)

    def forward(self, x):  # torch spelling: Module.execute dispatches to forward
        return self.conv(x) * self.kernel.sum() * self.scale


def test_buffers_are_saved_but_never_trained():
    m = Blur()
    assert [n for n, _ in m.named_parameters()] == ["scale", "conv.weight", "conv.bias"]
    assert [n for n, _ in m.named_buffers()] == ["kernel", "cache"]
    # torch's order: own parameters, own persistent buffers, then children
    assert list(m.state_dict()) == ["scale", "kernel", "conv.weight", "conv.bias"]
    for opt in (shims.optim.Adam(m.parameters(), lr=0.1), jt.optim.Adam(list(m.state_dict().values()), lr=0.1)):
        for _ in range(3):
            opt.step((m(jt.ones(1, 2, 4, 4)) ** 2).sum())
        np.testing.assert_array_equal(m.kernel.numpy(), np.full(3, 0.25, np.float32))
    m.kernel = m.kernel * 2  # re-assigning keeps it a (frozen) buffer
    assert "kernel" not in [n for n, _ in m.named_parameters()] and m.kernel.is_stop_grad()


def _gan():
    jt.set_global_seed(0)
    G, D = jnn.Linear(3, 4), nn.Sequential(jnn.Linear(4, 1))
    return G, D


def test_requires_grad_false_still_lets_gradient_through():
    """GAN G-step with D.requires_grad_(False): G still gets its full gradient (Jittor's own
    requires_grad_ runs D under no_grad and G gets zero)."""
    G, D = _gan()
    z = jt.ones(2, 3)
    want = jt.grad(D(G(z)).sum(), G.weight).numpy()
    D.requires_grad_(False)
    got = jt.grad(D(G(z)).sum(), G.weight).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.abs(got).sum() > 0
    assert all(p.is_stop_grad() for p in D.parameters())
    D.requires_grad_(True)
    assert not any(p.is_stop_grad() for p in D.parameters())


def test_eval_keeps_gradients_flowing():
    m = nn.Sequential(jnn.Linear(3, 2), nn.BatchNorm1d(2))
    m.eval()
    assert m[1].is_train is False and m.training is False
    g = jt.grad(m(jt.ones(4, 3)).sum(), m[0].weight)
    assert np.abs(g.numpy()).sum() > 0
    m.train()
    assert m[1].is_train is True
    with pytest.raises(ValueError):
        m.train("yes")


def test_set_tensor_attr_is_not_a_parameter_and_keeps_its_graph():
    class AdaIN(nn.Module):
        def __init__(self):
            super().__init__()
            self.set_tensor_attr("weight", None)

        def forward(self, x):
            return x * self.weight

    m = AdaIN()
    src = jt.array([2.0, 3.0])
    m.weight = src * 2  # assigned from another network, as HiSD/MCCNet do
    assert m.state_dict() == {} and m.parameters() == []
    g = jt.grad(m(jt.ones(2)).sum(), src)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0])


def test_load_state_dict_strict_reports_like_torch():
    m = Blur()
    sd = {k: v.numpy() for k, v in m.state_dict().items()}
    assert tuple(m.load_state_dict(sd)) == ([], [])
    bad = dict(sd)
    del bad["kernel"]
    bad["extra"] = np.ones(1)
    bad["conv.bias"] = np.ones(3, np.float32)
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(bad)
    msg = str(err.value)
    assert "Error(s) in loading state_dict for Blur" in msg
    assert 'Missing key(s) in state_dict: "kernel"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    assert "size mismatch for conv.bias" in msg
    del bad["conv.bias"]
    missing, unexpected = m.load_state_dict(bad, strict=False)
    assert (missing, unexpected) == (["kernel", "conv.bias"], ["extra"])


def test_load_state_dict_maps_prefix_bn_counter_and_weight_norm():
    net = jnn.Sequential(jnn.Conv2d(2, 3, 3), jnn.BatchNorm2d(3))
    sd = {f"module.{k}": np.full(tuple(v.shape), 0.5, np.float32) for k, v in net.state_dict().items()}
    sd["module.1.num_batches_tracked"] = np.array(7)
    assert tuple(shims.load_state_dict(net, sd)) == ([], [])
    np.testing.assert_array_equal(net[0].weight.numpy(), 0.5)
    # torch's weight-norm keys folded into a plain weight: w = g * v / ||v||
    rng = np.random.default_rng(0)
    v = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    g = rng.standard_normal((3, 1, 1, 1)).astype(np.float32)
    conv = jnn.Conv2d(2, 3, 3)
    shims.load_state_dict(conv, {"weight_g": g, "weight_v": v, "bias": np.zeros(3, np.float32)})
    want = v * g / np.sqrt((v.astype(np.float64) ** 2).sum(axis=(1, 2, 3), keepdims=True))
    np.testing.assert_allclose(conv.weight.numpy(), want, rtol=1e-6)
    # and torch's new parametrizations keys onto a weight-normed module
    wn = nn.weight_norm(jnn.Conv2d(2, 3, 3))
    shims.load_state_dict(wn, {"bias": np.zeros(3, np.float32),
                               "parametrizations.weight.original0": g,
                               "parametrizations.weight.original1": v})
    np.testing.assert_array_equal(wn.weight_g.numpy(), g)


def test_sequential_and_dicts():
    seq = nn.Sequential(jnn.ReLU(), jnn.Linear(2, 2), jnn.Sigmoid())
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    assert isinstance(seq[-1], jnn.Sigmoid)
    seq.insert(0, jnn.Identity())
    seq.extend([jnn.Tanh()])
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Identity", "Linear", "Sigmoid", "Tanh"]
    assert list(seq.state_dict()) == ["1.weight", "1.bias"]
    with pytest.raises(IndexError):
        seq[7]
    md = nn.ModuleDict({"b": jnn.Linear(1, 1)})
    md["a"] = jnn.Linear(1, 2)
    assert md.keys() == ["b", "a"] and "a" in md and list(md.state_dict())[0] == "b.weight"
    assert isinstance(md.pop("b"), jnn.Linear) and md.keys() == ["a"]
    with pytest.raises(TypeError):
        md["c"] = 3
    ml = nn.ModuleList([jnn.ReLU()])
    with pytest.raises(NotImplementedError):
        ml(jt.ones(1))


def test_traversals_work_with_next_as_torchs_generators():
    """``next(model.parameters())`` (the word-language-model idiom): torch returns generators,
    Jittor lists; the shims return lists that ``next()`` also walks, on user modules and on
    Jittor's own layers."""
    m = Blur()
    for module in (m, m.conv):
        for name in nn.module.TRAVERSALS:
            if not hasattr(module, name):
                continue
            got = getattr(module, name)()
            assert isinstance(got, list), name
            if got:
                assert next(got) is got[0], name
            else:  # a layer's children(): empty, as torch's
                with pytest.raises(StopIteration):
                    next(got)
    params = m.parameters()
    assert [next(params), next(params), next(params)] == list(m.parameters())
    with pytest.raises(StopIteration):
        next(params)
    assert next(m.conv.parameters()) is m.conv.weight
    assert next(m.named_children())[0] == "conv"
    # a fresh call starts over, as torch's generators do; iterating never consumes the list
    assert next(m.parameters()) is m.scale and len(list(params)) == 3


def test_traversal_lists_go_into_jittors_own_list_apis():
    """Jittor's C++ binding takes exact lists only: ``jt.grad(loss, model.parameters())``,
    ``jt.sync(...)`` and ``jt.fetch_sync(...)`` (Jittor's idioms) must still take the traversals'
    lists (they raised 'Wrong inputs arguments' once parameters() returned a list subclass)."""
    m = Blur()
    params = m.parameters()
    loss = m(jt.ones((1, 2, 4, 4))).sum()
    grads = jt.grad(loss, params)
    assert len(grads) == len(params) == 3
    assert [g.shape for g in grads] == [p.shape for p in params]
    jt.sync(m.parameters())
    assert [a.shape for a in jt.fetch_sync(m.parameters())] == [tuple(p.shape) for p in params]
    assert jt.grad(loss, targets=m.parameters())[0].shape == grads[0].shape


def test_module_to_places_nothing_and_casts_floats_as_torch():
    import jittor as jt

    import shims

    class Net(shims.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = jt.ones(2)
            self.register_buffer("steps", jt.zeros(1, dtype="int32"))

    net, placement = Net(), jt.flags.use_cuda
    assert net.to("cuda") is net and net.to(None, non_blocking=True) is net
    assert str(net.w.dtype) == "float32" and jt.flags.use_cuda == placement
    assert net.to("cpu", jt.float16) is net and str(net.w.dtype) == "float16"
    net.to(dtype=jt.float64)
    assert str(net.w.dtype) == "float64"
    net.to(jt.zeros(1, dtype="float32"))  # a tensor's dtype
    assert str(net.w.dtype) == "float32" and str(net.steps.dtype) == "int32"


def test_tensors_assigned_after_init_are_state_only_as_parameters():
    """torch's rule: after ``__init__`` a tensor attribute is state only when it is a Parameter
    (``shims.nn.parameter``, what the converter writes there) or a registered buffer."""
    class Trainer(nn.Module):
        def __init__(self):
            super().__init__()
            self.gen = jnn.Linear(2, 2)
            self.scale = jt.ones(2)  # in __init__: a parameter, as Jittor's layers expect
            self.register_buffer("steps", jt.zeros(1))

        def update(self, x):
            self.loss_gen = (self.gen(x) * self.scale).sum()
            self.lazy = nn.parameter(jt.zeros(2))
            self.steps = self.steps + 1
            return self.loss_gen

    t = Trainer()
    loss = t.update(jt.ones(1, 2))
    assert list(t.state_dict()) == ["scale", "lazy", "steps", "gen.weight", "gen.bias"]
    assert [n for n, _ in t.named_parameters()] == ["scale", "lazy", "gen.weight", "gen.bias"]
    assert t.loss_gen is loss and "loss_gen" not in t.__dict__
    t.loss_gen = loss * 2  # re-assigned: still a plain attribute
    assert "loss_gen" not in t.state_dict()
    # the graph of the plain attribute is kept
    np.testing.assert_allclose(jt.grad(t.loss_gen, t.scale).numpy(), 2 * t.gen(jt.ones(1, 2)).numpy()[0], rtol=1e-6)


def test_frozen_module_called_with_gradients_on_keeps_no_graph():
    """Torch records no graph for a call where no parameter and no input requires a gradient
    (StyleGAN2-ADA samples its image grid through a frozen ``G_ema`` copy with gradients on);
    Jittor kept each executed call's graph, because a fresh ``jt.randn`` is not stop-grad
    inside Jittor, until the machine ran out of memory. Such a call now runs without gradients;
    a trainable module, or an input that requires a gradient, still records its graph."""
    net = nn.Sequential(jnn.Linear(3, 4), jnn.ReLU(), jnn.Linear(4, 2))
    z = jt.randn(5, 3)
    expected = net(z).numpy()
    net.requires_grad_(False)
    frozen = net(z)
    assert frozen.is_stop_grad() and not frozen.requires_grad
    np.testing.assert_array_equal(frozen.numpy(), expected)
    x = jt.randn(5, 3)
    x.requires_grad = True
    assert np.abs(jt.grad(net(x).sum(), x).numpy()).sum() > 0
    net.requires_grad_(True)
    assert not net(z).is_stop_grad()


def test_frozen_module_given_a_gradient_inside_a_container_records_its_graph():
    """The input that requires a gradient may sit in a dict or list (a parameterless loss module
    called with a dict of outputs), or in an object the call cannot see into: either way the call
    records its graph, as torch does."""
    class Picks(nn.Module):  # frozen weights: only its inputs decide
        def __init__(self):
            super().__init__()
            self.scale = jt.array([2.0])
            self.scale.requires_grad = False

        def execute(self, batch):
            return (batch["img"][0] if isinstance(batch, dict) else batch.img) * self.scale

    class Holder:
        def __init__(self, img):
            self.img = img

    x = jt.randn(3)
    x.requires_grad = True
    for arg in ({"img": [x]}, Holder(x)):
        assert np.abs(jt.grad(Picks()(arg).sum(), x).numpy()).sum() > 0
    assert Picks()({"img": [jt.randn(3)]}).is_stop_grad()
