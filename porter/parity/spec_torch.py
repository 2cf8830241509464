"""Torch side of ``jtport parity SPEC`` (runs in ``.venv-torch``): build the spec's torch model,
run :func:`.torch_dump.dump`, write ``OUT/reference.npz``.

    python -m porter.parity.spec_torch SPEC --out OUT
"""
import argparse
from pathlib import Path

from porter.parity import torch_dump
from porter.parity.spec import load_spec, resolve


def main(argv=None) -> None:
    """Build, run, dump."""
    ap = argparse.ArgumentParser()
    ap.add_argument("spec", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    spec = load_spec(args.spec)
    torch_dump.deterministic(spec.seed)
    model = resolve(spec.factory, spec.torch_root)()
    forward = resolve(spec.forward, spec.torch_root) if spec.forward else torch_dump.default_forward
    args.out.mkdir(parents=True, exist_ok=True)
    torch_dump.dump(args.out / "reference.npz", model, torch_dump.make_inputs(spec.inputs, spec.seed),
                    forward=forward, seed=spec.seed, steps=spec.steps, optimizer=spec.optimizer)


if __name__ == "__main__":
    main()
