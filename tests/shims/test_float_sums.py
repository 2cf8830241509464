"""float32 reductions with torch's accuracy on the CPU (``shims.ops._common.float_sum``).

Jittor's CPU reductions add their terms one after another in float32: the sum of 10^6 uniform
numbers came out 3e-5 off the exact sum (torch: 8e-9), a mean of 6,144 terms 2.4e-6 off (torch:
4e-8). The shims reductions that converted code calls accumulate in float64 and round once."""
import numpy as np
import pytest

import shims
import jittor as jt

N = 1_000_000
# one float32 rounding of the result, and a little for the float64 accumulation
ONE_ROUNDING = 2 ** -23


@pytest.fixture(scope="module")
def data():
    return np.random.RandomState(0).rand(N).astype(np.float32)


def _rel(got, want) -> float:
    return abs(float(np.asarray(got).reshape(-1)[0]) / want - 1)


def test_jittor_own_sum_is_the_trap(data):
    """The measurement the shims rest on (if Jittor ever sums in blocks, this fails: drop the shim)."""
    assert _rel(jt.array(data).sum().numpy(), data.astype(np.float64).sum()) > 16 * ONE_ROUNDING


def test_sum_and_mean(data):
    exact = data.astype(np.float64)
    x = jt.array(data)
    assert _rel(shims.sum(x).numpy(), exact.sum()) <= ONE_ROUNDING
    assert _rel(shims.mean(x).numpy(), exact.mean()) <= ONE_ROUNDING
    assert str(shims.sum(x).dtype) == "float32" and str(shims.mean(x).dtype) == "float32"


def test_dims_keepdim_and_var(data):
    exact = data.astype(np.float64).reshape(100, 10_000)
    x = jt.array(data.reshape(100, 10_000))
    got = shims.mean(x, dim=1, keepdim=True).numpy()
    assert got.shape == (100, 1)
    np.testing.assert_allclose(got[:, 0], exact.mean(1), rtol=ONE_ROUNDING)
    np.testing.assert_allclose(shims.var(x, dim=1).numpy(), exact.var(1, ddof=1), rtol=4 * ONE_ROUNDING)


def test_losses_and_their_gradients(data):
    a = jt.array(data[:6144].reshape(2, 3, 32, 32))
    b = jt.array(data[6144:12288].reshape(2, 3, 32, 32))
    exact = ((data[:6144].astype(np.float64) - data[6144:12288]) ** 2).mean()
    for loss in (shims.mse_loss(a, b), shims.nn.MSELoss()(a, b)):
        assert _rel(loss.numpy(), exact) <= 4 * ONE_ROUNDING
    assert _rel(shims.nn.L1Loss(reduction="sum")(a, b).numpy(),
                np.abs(data[:6144].astype(np.float64) - data[6144:12288]).sum()) <= 4 * ONE_ROUNDING
    g = jt.grad(shims.mse_loss(a, b), a).numpy()
    np.testing.assert_allclose(g, 2 * (a.numpy() - b.numpy()) / 6144, rtol=1e-6)
    assert str(g.dtype) == "float32"


def test_integer_sums_are_unchanged():
    x = jt.array(np.arange(10, dtype=np.int32))
    assert str(shims.sum(x).dtype) == "int64" and int(shims.sum(x).numpy()[0]) == 45
