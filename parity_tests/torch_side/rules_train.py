"""Torch side of the rule parity tests: runs every case of ``rules_cases.py`` in ``.venv-torch``.

Writes ``inputs.npz`` (the arrays both sides start from) and ``<case>.npz`` (each case's
outputs) into ``--out``.  Run through ``porter.prove.torchside.run_torch``.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rules_cases  # noqa: E402


def make_inputs() -> dict:
    """The arrays every case starts from (float32, fixed seed)."""
    rng = np.random.RandomState(0)
    shapes = {"fc1.weight": (8, 4), "fc1.bias": (8,), "fc2.weight": (2, 8), "fc2.bias": (2,),
              "x": (6, 4), "y": (6, 2)}
    return {k: (rng.randn(*s) * 0.5).astype(np.float32) for k, s in shapes.items()}


def main() -> None:
    """Run all cases and save their outputs."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    out = Path(parser.parse_args().out)
    torch.manual_seed(0)
    arrays = make_inputs()
    np.savez(out / "inputs.npz", **arrays)
    for case in rules_cases.CASES:
        state = {k: torch.from_numpy(v.copy()) for k, v in arrays.items() if "." in k}
        x, y = torch.from_numpy(arrays["x"].copy()), torch.from_numpy(arrays["y"].copy())
        result = case(state, x, y)
        np.savez(out / f"{case.__name__}.npz", **{k: v.detach().numpy() for k, v in result.items()})


if __name__ == "__main__":
    main()
