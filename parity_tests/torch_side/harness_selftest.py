"""Torch side of the harness self-test (``parity_tests/test_harness.py``): a tiny model whose
Jittor twin the test builds by hand, once faithful and once deliberately perturbed.

Run by ``run_torch`` in ``.venv-torch``: ``harness_selftest.py --out DIR`` writes ``DIR/tiny.npz``.
"""
from torch import nn

from porter.prove.torch_side import torch_dump

SEED = 0
INPUTS = {"x": (2, 3, 4, 4)}
OPTIMIZER = {"name": "sgd", "lr": 0.05, "momentum": 0.9}
STEPS = 2


class Tiny(nn.Module):
    """Conv -> ReLU -> residual (Sequential conv + LeakyReLU) -> shared ReLU -> Linear; returns
    a tuple with a 0-d tensor, so output flattening and scalar outputs are exercised too."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.act = nn.ReLU()
        self.body = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.LeakyReLU(0.2))
        self.head = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        h = self.act(self.stem(x))
        h = self.act(self.body(h) + h)
        return self.head(h.flatten(1)), h.mean()


def main() -> None:
    """Write the reference."""
    out = torch_dump.out_dir_from_argv()
    torch_dump.deterministic(SEED)
    model = Tiny()
    torch_dump.dump(out / "tiny.npz", model, torch_dump.make_inputs(INPUTS, SEED), seed=SEED,
                    steps=STEPS, optimizer=OPTIMIZER)


if __name__ == "__main__":
    main()
