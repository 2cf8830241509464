"""Jittor side of MCCNet's encoder gradients in float64 (``test_mccnet.test_encoder_stages``),
in a fresh process.

    python -m parity_tests.jittor_side.encoder_float64 --ref build/parity/mccnet --out DIR

Why a process of its own: with Jittor 1.3.11, float64 gradients computed in a process that has
already run float32 backward passes of the same network can be wrong (measured in ``make test``:
every VGG gradient 26x torch's, and MCCNet's decoder gradients zero, while the loss was right);
the same computation in a fresh process agrees with torch to 8e-15.  Writes ``DIR/jittor.npz``:
``loss64`` and ``grad64/<name>`` for every VGG parameter.
"""
import argparse
from pathlib import Path

import numpy as np

import shims  # noqa: F401  (Jittor's settings before Jittor is imported)

from porter.prove.model import ModelParity
from porter.prove.reference import Reference
from porter.prove.ported import import_ported

STAGES = ["enc_1", "enc_2", "enc_3", "enc_4", "enc_5"]


def main(argv=None) -> None:
    """Load the torch weights into the converted ``Net``, unfreeze the VGG, compute in float64."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", type=Path, required=True, help="the MCCNet torch side's output folder")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    net_mod = import_ported("models_ref.mccnet.net")
    network = net_mod.Net(net_mod.vgg, net_mod.decoder)
    for name in STAGES:
        for p in getattr(network, name).parameters():
            p.requires_grad = True
    parity = ModelParity("mccnet", Reference(args.ref / "encoder.npz"), network,
                         forward=lambda m, a: m.encode_with_intermediate(a["x"]), results=args.out / "results")
    _, loss, grads = parity.float64_run()
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "jittor.npz", loss64=loss, **{f"grad64/{n}": g for n, g in grads.items()})


if __name__ == "__main__":
    main()
