"""The float32 judge of ``jtport parity``: where float32 cannot decide, the port's float32 error
is measured against torch's own float32 error on the same array (``within_torch_rounding``)."""
import numpy as np

from porter.prove.tolerance import ROUNDING_FACTOR, within_torch_rounding


def _arrays(port_noise: float, torch_noise: float, seed: int = 0):
    """Torch's float64 result of an ill-conditioned array, torch's float32 result and the port's,
    each off it by noise of the given size (rounding amplified by the network)."""
    rng = np.random.RandomState(seed)
    truth = rng.randn(64)
    return ({"grad/w": truth + port_noise * rng.randn(64)}, {"grad/w": truth + torch_noise * rng.randn(64)},
            {"grad/w": truth})


def test_rounding_of_the_same_size_as_torchs_passes():
    got, ref32, ref64 = _arrays(port_noise=2e-3, torch_noise=1e-3)
    comps, ratio = within_torch_rounding(got, ref32, ref64, ["grad/w"], rtol=1e-4, atol=1e-6)
    assert [c.ok for c in comps] == [True]
    assert 1.0 < ratio < ROUNDING_FACTOR
    assert "torch's own float32 error" in comps[0].reason


def test_a_float32_only_port_error_fails():
    """The issue's MCCNet figures: torch's float32 within ~2e-6 of float64, the port 4e-3 off."""
    got, ref32, ref64 = _arrays(port_noise=4e-3, torch_noise=2e-6)
    comps, ratio = within_torch_rounding(got, ref32, ref64, ["grad/w"], rtol=1e-4, atol=1e-6)
    assert [c.ok for c in comps] == [False]
    assert ratio > 1000


def test_only_the_named_arrays_are_judged():
    got, ref32, ref64 = _arrays(port_noise=4e-3, torch_noise=2e-6)
    comps, ratio = within_torch_rounding(got, ref32, ref64, [], rtol=1e-4, atol=1e-6)
    assert comps == [] and ratio == 0.0


def test_the_rows_tolerance_still_applies():
    """An array torch computes exactly in float32 (own error 0) passes within rtol/atol."""
    got, _, ref64 = _arrays(port_noise=1e-7, torch_noise=0.0)
    comps, _ = within_torch_rounding(got, dict(ref64), ref64, ["grad/w"], rtol=1e-4, atol=1e-6)
    assert [c.ok for c in comps] == [True]


def test_torchs_spread_at_nearby_starts_is_its_own_error():
    """torch's own error at starts one rounding apart (``grad32err/``) replaces a smaller draw."""
    got, ref32, ref64 = _arrays(port_noise=4e-3, torch_noise=2e-6)
    comps, ratio = within_torch_rounding(got, ref32, ref64, ["grad/w"], rtol=1e-4, atol=1e-6,
                                         own_errors={"grad/w": 2e-2})
    assert [c.ok for c in comps] == [True] and ratio < 1
    assert "torch's own float32 error 0.02" in comps[0].reason
