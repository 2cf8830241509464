"""Parity of ``shims.ema_update`` with torch's ``p_ema.copy_(p.lerp(p_ema, beta))``."""
from pathlib import Path

import numpy as np
import pytest

import shims
import jittor as jt
from jittor import nn as jnn
from shims import nn
from porter.prove.torchside import TorchSide

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]


TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "shims_memory.py", "shims_memory")


@pytest.fixture(scope="module")
def ref():
    return np.load(TORCH_SIDE.run() / "ema.npz")


@pytest.mark.parametrize("tag,beta", [("hi", 0.999), ("mid", 0.5), ("lo", 0.3)])
def test_ema_matches_torch_lerp(ref, tag, beta):
    ema = jt.array(ref[f"{tag}_ema0"])
    for i in range(3):
        shims.ema_update([ema], [jt.array(ref[f"{tag}_src{i}"])], beta)
        # torch's two-branch lerp formula, float32: equal to 1 ulp
        np.testing.assert_allclose(ema.numpy(), ref[f"{tag}_ema{i + 1}"], rtol=2e-7, atol=1e-7)


def test_ema_modules_lerp_params_and_copy_buffers():
    class G(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = jnn.Linear(3, 2)
            self.register_buffer("mean", jt.zeros(2))

    g, g_ema = G(), G()
    g.mean = jt.ones(2)
    w_ema, w = g_ema.fc.weight.numpy(), g.fc.weight.numpy()
    shims.ema_update(g_ema, g, 0.9)
    # a lerp rounds at its operands' scale, not its result's: an element that lands near zero (random
    # init) keeps a float32 rounding of |w| (seen: 3e-8 on 0.0026, 7e-6 relative), so the bound is a few
    # ulps of the operands besides the relative one
    ulps = 4 * 2.0 ** -23 * float(np.abs(np.concatenate([w, w_ema])).max())
    np.testing.assert_allclose(g_ema.fc.weight.numpy(), w - (w - w_ema) * 0.9 + 0.0, rtol=1e-6, atol=ulps)
    np.testing.assert_array_equal(g_ema.mean.numpy(), [1.0, 1.0])
    assert g_ema.mean.is_stop_grad()
    with pytest.raises(ValueError, match="beta"):
        shims.ema_update(g_ema, g, 1.5)
