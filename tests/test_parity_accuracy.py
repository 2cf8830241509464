"""The always-on float32 accuracy judge (``porter.prove.accuracy``): every array with a float64
reference is judged against torch's own float32 error, with no rtol/atol added."""
import numpy as np

from porter.prove.accuracy import ROUNDING_FACTOR, noisier_than_torch

from tests.test_parity_rounding import _arrays


def test_a_port_much_noisier_than_torch_fails_whatever_the_tolerance():
    """30x torch's error, well inside any atol a network's row would carry: still a failure."""
    got, ref32, ref64 = _arrays(port_noise=3e-5, torch_noise=1e-6)
    failing, ratio = noisier_than_torch(got, ref32, ref64, ["grad/w"])
    assert [c.name for c in failing] == ["grad/w (float32 accuracy vs torch's float64)"]
    assert ratio > ROUNDING_FACTOR and "torch's own float32 error" in failing[0].reason


def test_rounding_of_torchs_size_passes():
    got, ref32, ref64 = _arrays(port_noise=2e-6, torch_noise=1e-6)
    failing, ratio = noisier_than_torch(got, ref32, ref64, ["grad/w"])
    assert failing == [] and 0 < ratio < ROUNDING_FACTOR


def test_an_exact_torch_result_leaves_a_few_ulps():
    """torch's float32 equal to float64 (own error 0): the port may still round a few ulps."""
    truth = np.linspace(-1, 1, 64)
    ulp = 2.0 ** -23
    ok, _ = noisier_than_torch({"o": truth + 3 * ulp}, {"o": truth}, {"o": truth}, ["o"])
    bad, _ = noisier_than_torch({"o": truth + 100 * ulp}, {"o": truth}, {"o": truth}, ["o"])
    assert ok == [] and len(bad) == 1


def test_arrays_without_a_reference_are_not_judged():
    got, ref32, _ = _arrays(port_noise=1e-3, torch_noise=1e-7)
    assert noisier_than_torch(got, ref32, {}, ["grad/w"]) == ([], None)
