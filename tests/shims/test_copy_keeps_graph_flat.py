"""``shims.copy_`` from a Var that is itself assigned to again every step (StyleGAN2-ADA's
``training_stats.Collector``: ``cumulative.add_(d)``, ``delta = cumulative - mine``,
``mine.copy_(cumulative)``) keeps the live graph flat, and still passes gradients."""
import numpy as np

import shims
import jittor as jt


def test_copy_from_a_reassigned_var_keeps_lived_vars_flat():
    total = jt.zeros([3], dtype="float64")
    mine = jt.zeros([3], dtype="float64")
    lived = []
    for _step in range(12):
        shims.add_(total, jt.ones([3], dtype="float64"))
        delta = total - mine
        shims.copy_(mine, total)
        assert float(delta[0]) == 1.0  # ``mine`` is read only through ``delta``, as in the Collector
        jt.sync_all()
        jt.gc()
        lived.append(jt.liveness_info()["lived_vars"])
    assert lived[-1] <= lived[3], lived
    assert float(mine[0]) == 12.0


def test_copy_still_differentiates_and_writes_values():
    w = jt.array(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    w.requires_grad = True
    buf = jt.zeros([3])
    shims.copy_(buf, w * 2)
    np.testing.assert_allclose(jt.grad(buf.sum(), w).numpy(), [2.0, 2.0, 2.0])
    src = jt.array(np.array([4.0, 5.0, 6.0], dtype=np.float32))
    dst = jt.zeros([3])
    shims.copy_(dst, src)
    shims.add_(src, 1.0)  # a later write to the source does not reach the copy
    np.testing.assert_allclose(dst.numpy(), [4.0, 5.0, 6.0])


def test_copies_under_no_grad_sync_together_when_the_block_exits(monkeypatch):
    """The EMA idiom (``p_ema.copy_(beta * p_ema + (1 - beta) * p)`` for every parameter inside
    ``no_grad``): the written Vars are synced in one ``jt.sync`` as the block exits, not one
    each; the graph stays flat, values are torch's, trainable targets require grad again."""
    src = [jt.array(np.full((4,), i, np.float32)) for i in range(5)]
    ema = [jt.zeros((4,)) for _ in range(5)]
    for p in ema:
        p.requires_grad = True
    calls = []
    real_sync = jt.sync
    monkeypatch.setattr(jt, "sync", lambda vs, *a, **k: (calls.append(len(vs)), real_sync(vs, *a, **k))[1])
    lived = []
    for _step in range(10):
        with shims.no_grad():
            for t, s in zip(ema, src):
                shims.copy_(t, 0.5 * t + 0.5 * s)
            assert all(t.requires_grad for t in ema)  # as in torch, also inside the block
        jt.gc()
        lived.append(jt.liveness_info()["lived_vars"])
    assert calls == [5] * 10
    assert lived[-1] <= lived[2], lived
    assert all(t.requires_grad for t in ema)
    np.testing.assert_allclose(ema[3].numpy(), np.full((4,), 3 * (1 - 0.5 ** 10), np.float32), rtol=1e-6)
    # outside any block a copy under Jittor's own no_grad flag is synced at once, as before
    calls.clear()
    with jt.no_grad():
        shims.copy_(ema[0], src[1])
    assert calls == [] and float(ema[0][0]) == 1.0
