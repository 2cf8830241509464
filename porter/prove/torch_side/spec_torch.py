"""Torch side of ``jtport parity SPEC`` (runs in ``.venv-torch``): build the spec's torch model,
load the spec's checkpoint into it if it names one (:func:`.checkpoint.load_torch`), run
:func:`.torch_dump.dump`, write ``OUT/reference.npz``.

    python -m porter.prove.torch_side.spec_torch SPEC --out OUT [--torch-root DIR] [--checkpoint [PART=]FILE ...]
        [--loss TERM]   # one term of the spec's loss list (default: its first)
"""
import argparse
import sys
from pathlib import Path

from porter.prove import checkpoint
from porter.prove.torch_side import torch_dump
from porter.prove.torch_side.cuda_as_cpu import cuda_as_cpu
from porter.prove.spec import SpecError, all_inputs, build, build_loss, for_term, load_spec, with_roots


def main(argv=None) -> None:
    """Build, run, dump."""
    ap = argparse.ArgumentParser()
    ap.add_argument("spec", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--torch-root", type=Path)
    ap.add_argument("--checkpoint", action="append")
    ap.add_argument("--loss", help="the term of the spec's loss list to differentiate")
    args = ap.parse_args(argv)
    with cuda_as_cpu():
        try:
            spec = with_roots(load_spec(args.spec), torch_root=args.torch_root, checkpoint=args.checkpoint)
            if args.loss:
                spec = for_term(spec, args.loss)
            torch_dump.deterministic(spec.seed)
            model, forward = build(spec, "torch", torch_dump.default_forward, torch_dump.shared_random)
            if spec.checkpoints:  # before anything is dumped: param/ holds its weights
                checkpoint.load_torch(spec, model)
            model_loss = build_loss(spec, "torch")
        except SpecError as e:  # the message names the spec and the problem: no traceback
            sys.exit(f"{e}")
        args.out.mkdir(parents=True, exist_ok=True)
        # float64 gradients too: jtport parity judges float32 gradient differences by them, and
        # by torch's own float32 error at starts one rounding apart (not its one draw)
        torch_dump.dump(args.out / "reference.npz", model, torch_dump.make_inputs(all_inputs(spec), spec.seed),
                        forward=forward, seed=spec.seed, steps=spec.steps, optimizer=spec.optimizer,
                        float64_grads=True, model_loss=model_loss, float32_spread=True)


if __name__ == "__main__":
    main()
