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
    for step in range(12):
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
