"""``jtport parity``'s steps row without a float64 reference (code that casts to float32 inside,
as StyleGAN2-ADA's does): a weight whose torch gradient is within the row's atol of zero is moved
by Adam by up to lr a step in the direction rounding chose, so it is compared within that move;
every other weight stays at rtol/atol."""
import numpy as np

import shims
import jittor as jt
from porter.parity.model import ModelParity

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


def _reference(tmp_path, flip: str) -> str:
    """torch's arrays for Tiny, with Adam's steps on weight ``flip`` taken the other way."""
    grads = {"w": X.astype(np.float64), "b": np.array([3e-9])}
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
    path = tmp_path / "reference.npz"
    np.savez(path, **arrays)
    return path


def _steps_row(tmp_path, flip: str):
    p = ModelParity("tiny", _reference(tmp_path, flip), Tiny(), results=tmp_path / "results.json")
    return p.check_steps("steps", {"name": "adam", "lr": LR, "eps": EPS}, rtol=1e-5, atol=1e-5)


def test_a_rounding_decided_step_passes_within_the_optimizers_move(tmp_path):
    row = _steps_row(tmp_path, flip="b")
    assert row.status == "passed", row
    assert "within atol=1e-05 of zero (1: b)" in row.detail


def test_a_step_the_gradient_decides_still_fails(tmp_path):
    row = _steps_row(tmp_path, flip="w")
    assert row.status == "failed", row
