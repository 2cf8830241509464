"""``GraphWatch`` flags the HiSD leak (an EMA copy updated lazily and never read) and stays
silent on the same loop with ``shims.ema_update`` over 200 steps; ``memory_report`` wording."""
import numpy as np
import pytest

import shims
import jittor as jt
from jittor import nn as jnn
from shims import GraphGrowthError, GraphWatch


def _setup():
    jt.set_global_seed(0)
    g = jnn.Sequential(jnn.Linear(8, 16), jnn.ReLU(), jnn.Linear(16, 8))
    g_ema = jnn.Sequential(jnn.Linear(8, 16), jnn.ReLU(), jnn.Linear(16, 8))
    for p in g_ema.parameters():  # frozen, as EMA copies are (a trainable one is a leaf of the
        p.requires_grad = False   # gradient store, which syncs it at every backward)
    opt = shims.optim.Adam(g.parameters(), lr=1e-3)
    return g, g_ema, opt, jt.array(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))


def _train_step(g, opt, x):
    opt.step((g(x) ** 2).mean())


def test_graphwatch_flags_leaky_ema():
    g, g_ema, opt, x = _setup()
    with pytest.raises(GraphGrowthError, match="never read") as err, GraphWatch(warmup=5, patience=20) as watch:
        for _ in range(200):
            _train_step(g, opt, x)
            for pe, p in zip(g_ema.parameters(), g.parameters()):
                pe.update(pe * 0.999 + p.detach() * 0.001)  # the HiSD write-up's leak
            watch.step()
    assert "lived_vars" in str(err.value) and len(watch.history) <= 26
    jt.sync_all()


def test_graphwatch_silent_on_correct_ema_over_200_steps():
    g, g_ema, opt, x = _setup()
    with GraphWatch(warmup=5, patience=20) as watch:
        watch.attach(opt)
        for _ in range(200):
            _train_step(g, opt, x)  # records through the optimizer hook
            shims.ema_update(g_ema, g, 0.999)
    assert len(watch.history) == 200 and not watch.growing
    lived = [h["lived_vars"] for h in watch.history]
    assert lived[-1] <= max(lived[5:25]), (lived[5:25], lived[-10:])  # flat: no step-on-step growth


def test_graphwatch_arguments():
    with pytest.raises(ValueError):
        GraphWatch(patience=1)


def test_memory_report_plain_words():
    text = shims.memory_report()
    assert "live Vars" in text and "CPU memory used by Jittor" in text
    assert "GPU" in text


def test_norm_layer_counters_do_not_grow_the_graph():
    """``num_batches_tracked`` is updated every step and rarely read: it must not chain ops."""
    conv, bn = jt.nn.Conv2d(3, 4, 3), shims.nn.BatchNorm2d(4)
    inorm = shims.nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
    opt = shims.optim.SGD(conv.parameters() + bn.parameters() + inorm.parameters(), lr=0.01)
    x = jt.array(np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32))
    with GraphWatch(warmup=3, patience=20) as watch:
        for _ in range(40):
            opt.step(inorm(bn(conv(x))).sqr().mean())
            watch.step()
    assert int(bn.num_batches_tracked.item()) == 40 == int(inorm.num_batches_tracked.item())
