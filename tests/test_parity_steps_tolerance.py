"""``jtport parity``'s steps row without a float64 reference (code that casts to float32 inside,
as StyleGAN2-ADA's does): a weight element whose torch gradient is within the row's atol of zero
is moved by Adam by up to lr a step in the direction rounding chose, so it is compared within
that move; every other element at rtol/atol, or, where the reference measured torch's own
spread (``step<k>/spread/``: its steps from a start one float32 rounding away), within
ROUNDING_FACTOR times that spread."""
import numpy as np

import shims
import jittor as jt
from porter.prove.model import ModelParity

LR, EPS = 1e-2, 1e-8
X = np.array([0.5, -1.0, 2.0], np.float32)


class Tiny(shims.nn.Module):
    """``x * w + 1e-9 * b``: ``b``'s gradient (3e-9) is far below any atol, ``w``'s is not."""

    def __init__(self):
        super().__init__()
        self.w = jt.array(np.array([1.0, 2.0, 3.0], np.float32))
        self.b = jt.zeros(1)

    def forward(self, x):
        return x * self.w + 1e-9 * self.b


def _reference(tmp_path, flip: str, w_shift: float = 0.0, w_spread: float = 0.0, w_grad=X) -> str:
    """torch's arrays for Tiny, with Adam's steps on weight ``flip`` taken the other way, torch's
    ``w`` after each step shifted by ``w_shift`` and its spread (if any) ``w_spread``; torch's
    gradient of ``w`` is ``w_grad``."""
    grads = {"w": np.asarray(w_grad, np.float64), "b": np.array([3e-9])}
    arrays = {"param/w": np.array([1.0, 2.0, 3.0], np.float32), "param/b": np.zeros(1, np.float32),
              "input/x": X, "meta/input_order": np.array(["x"]), "meta/trainable": np.array(["w", "b"]),
              "lossw/out": np.ones(3, np.float32), "output/out": X * np.array([1.0, 2.0, 3.0], np.float32),
              "loss": np.array([float((X * [1.0, 2.0, 3.0]).sum())], np.float32)}
    for n, g in grads.items():
        arrays[f"grad/{n}"] = g.astype(np.float32)
        # a constant gradient: Adam's bias-corrected step is lr * g / (|g| + eps) every step
        move = LR * g / (np.abs(g) + EPS) * (-1.0 if n == flip else 1.0)
        for k in (1, 2):
            arrays[f"step{k}/param/{n}"] = (arrays[f"param/{n}"] - k * move).astype(np.float32)
    for k in (1, 2):
        arrays[f"step{k}/param/w"] += np.float32(w_shift)
        if w_spread:
            arrays[f"step{k}/spread/w"] = np.full(3, w_spread, np.float32)
            arrays[f"step{k}/spread/b"] = np.zeros(1, np.float32)
    path = tmp_path / "reference.npz"
    np.savez(path, **arrays)
    return path


def _steps_row(tmp_path, flip: str, **torch_side):
    p = ModelParity("tiny", _reference(tmp_path, flip, **torch_side), Tiny(), results=tmp_path / "results.json")
    return p.check_steps("steps", {"name": "adam", "lr": LR, "eps": EPS}, rtol=1e-5, atol=1e-5)


def test_a_rounding_decided_step_passes_within_the_optimizers_move(tmp_path):
    row = _steps_row(tmp_path, flip="b")
    assert row.status == "passed", row
    assert "1 element(s) of 1 weight(s) whose gradient is zero up to float32 rounding or within atol=1e-05 " \
        "of zero (b)" in row.detail


def test_a_step_the_gradient_decides_still_fails(tmp_path):
    row = _steps_row(tmp_path, flip="w")
    assert row.status == "failed", row


def test_a_difference_within_torchs_own_spread_passes(tmp_path):
    """torch's steps on w moved 1e-4 (beyond rtol/atol) where torch's own spread is 5e-5: 2x."""
    row = _steps_row(tmp_path, flip="", w_shift=1e-4, w_spread=5e-5)
    assert row.status == "passed", row
    assert "within 2x torch's own spread" in row.detail, row.detail


def test_a_difference_beyond_torchs_own_spread_fails(tmp_path):
    """The same 1e-4 where torch's own spread is 5e-6 (20x, over ROUNDING_FACTOR), and the same
    shift without any spread measured: both fail."""
    assert _steps_row(tmp_path, flip="", w_shift=1e-4, w_spread=5e-6).status == "failed"
    assert _steps_row(tmp_path, flip="", w_shift=1e-4).status == "failed"


def test_an_element_whose_torch_gradient_is_zero_is_compared_within_the_move(tmp_path):
    """torch's gradient of w[1] exactly 0 (Adam leaves it), the port's -1 (Adam moves it by lr):
    that element alone is held to 2 x steps x lr; a nonzero one moving the other way still fails."""
    row = _steps_row(tmp_path, flip="", w_grad=[0.5, 0.0, 2.0])
    assert row.status == "passed", row
    assert "2 element(s) of 2 weight(s)" in row.detail and "(b, w)" in row.detail, row.detail
    assert _steps_row(tmp_path, flip="", w_grad=[0.5, 1.0, 2.0]).status == "failed"
