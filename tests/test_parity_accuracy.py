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


# StarGAN v2's diversity term, mean |G(x, s1) - G(x, s2)|, in miniature: the L1 of two near-equal
# float32 products W1 x and W2 x.  Its gradient for W1 is sign(W1 x - W2 x) x / M, so a row whose
# difference float32 computes on the wrong side of zero is off by 2|x| / M, ~1e7 times the
# rounding of the other rows.  Which rows flip is decided by the order of the float32 sums.
_M, _K = 2048, 256


def _l1_gradient(w1, w2, x, dtype=np.float32, order=None):
    """d mean|W1 x - W2 x| / dW1 computed in ``dtype``, its dot products summed in ``order``."""
    a, b, v = (np.asarray(t, dtype) for t in (w1, w2, x))
    if order is not None:
        a, b, v = a[:, order], b[:, order], v[order]
    g = np.sign(a @ v - b @ v)[:, None] * v[None, :] / dtype(_M)
    return (g if order is None else g[:, np.argsort(order)]).astype(np.float64)


def _near_equal_l1():
    """Weights whose products differ by 1.7e-7 .. ~1e-3 while float32 computes them ~7e-7 apart
    (the seed makes torch's own float32 draw a lucky one: no sign wrong)."""
    rng = np.random.RandomState(6)
    x = rng.randn(_K)
    w1 = rng.randn(_M, _K) / 16
    w2 = w1 + 1e-4 * rng.randn(_M, _K) / 16
    return x, w1.astype(np.float32).astype(np.float64), w2.astype(np.float32).astype(np.float64)


def _spread(w1, w2, x):
    """Torch's float32 error at starts one rounding apart, each against float64 at that start
    (what ``torch_dump.float32_error_spread`` saves as ``grad32err/``)."""
    err = 0.0
    for seed in (1, 2, 3):
        noise = np.random.default_rng(seed).standard_normal(w1.shape)
        start = (w1.astype(np.float32) * (1 + 2.0 ** -23 * noise).astype(np.float32)).astype(np.float64)
        err = max(err, np.abs(_l1_gradient(start, w2, x) - _l1_gradient(start, w2, x, np.float64)).max())
    return err


def test_a_sign_float32_decides_is_judged_by_torchs_spread_not_its_one_draw():
    """Torch's float32 draw gets every sign right; a second, equally accurate float32 order (the
    port's) gets one of 2,048 wrong.  Against the one draw the port looks ~1e7x noisier than
    torch (StarGAN v2's ds row: 28x, up to 1.75e5x); against torch's own error at starts one
    rounding apart, which gets a sign wrong too, it is torch's equal."""
    x, w1, w2 = _near_equal_l1()
    truth = _l1_gradient(w1, w2, x, np.float64)
    ref32 = {"grad/w": _l1_gradient(w1, w2, x)}
    got = {"grad/w": _l1_gradient(w1, w2, x, order=np.arange(_K)[::-1].copy())}
    ref64 = {"grad/w": truth}
    assert np.abs(ref32["grad/w"] - truth).max() < 1e-9 < 1e-4 < np.abs(got["grad/w"] - truth).max()
    one_draw, ratio = noisier_than_torch(got, ref32, ref64, ["grad/w"])
    assert len(one_draw) == 1 and ratio > 1e6
    spread = _spread(w1, w2, x)
    assert spread > 1e-4  # a start one rounding away gets a sign wrong too
    failing, ratio = noisier_than_torch(got, ref32, ref64, ["grad/w"], {"grad/w": spread})
    assert failing == [] and ratio < ROUNDING_FACTOR


def test_torchs_spread_does_not_excuse_a_noisier_port():
    """The spread only replaces a smaller one-draw error: a port 30x torch's spread still fails,
    and a spread smaller than torch's own draw leaves the draw as the yardstick."""
    x, w1, w2 = _near_equal_l1()
    truth = _l1_gradient(w1, w2, x, np.float64)
    spread = _spread(w1, w2, x)
    noisy = truth.copy()
    noisy[0, 0] += 30 * spread
    failing, ratio = noisier_than_torch({"grad/w": noisy}, {"grad/w": _l1_gradient(w1, w2, x)}, {"grad/w": truth},
                                        ["grad/w"], {"grad/w": spread})
    assert len(failing) == 1 and 29 < ratio < 31
    got, ref32, ref64 = _arrays(port_noise=3e-5, torch_noise=1e-6)
    assert len(noisier_than_torch(got, ref32, ref64, ["grad/w"], {"grad/w": 1e-9})[0]) == 1
