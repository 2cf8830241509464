"""Jittor side of MCCNet's float64 parity (``test_mccnet.test_net_float64``), in its own process.

    python -m parity_tests.jittor_side.mccnet_float64 --ref build/parity/mccnet --out DIR \
        --steps 5 --lr 1e-4

Loads the torch side's weights (``net.npz``) into the converted ``Net`` (built upstream's way
from the module-level VGG and decoder), runs it in float64 (``porter.prove.model.in_float64``) on
``net.npz``'s batch with upstream's weighted loss, and writes ``DIR/jittor.npz`` in the torch
dump's layout: ``loss`` and ``grad/<name>`` (every trainable parameter) of the first pass,
``step<k>/param/<name>`` after each of ``--steps`` Adam steps (``shims.optim``'s torch-faithful
Adam, the same batch every step), and ``meta/dtypes`` (what the parameters computed in).
Jittor runs this on one core for minutes, so the test starts it in the background.
"""
import argparse
from pathlib import Path

import numpy as np

import shims  # noqa: F401  (Jittor's settings for this machine, before Jittor is imported)
import jittor as jt

from porter.prove.model import make_optimizer
from porter.prove.reference import Reference, in_float64, load_weights, to_numpy
from porter.prove.ported import import_ported


def weighted_loss(outputs, weights):
    """Upstream's training loss: ``Net``'s six losses times ``weights``, summed."""
    total = outputs[0] * weights[0]
    for w, part in zip(weights[1:], outputs[1:6]):
        total = total + part * w
    return total.sum()


def float64_run(ref: Reference, steps: int, lr: float) -> dict:
    """The arrays described in the module docstring."""
    weights = [float(w) for w in ref["meta/loss_weights"]]
    net_mod = import_ported("models_ref.mccnet.net")
    network = net_mod.Net(net_mod.vgg, net_mod.decoder)
    load_weights(network, ref.state_dict)
    arrays = {}
    with in_float64(network):
        params = dict(network.named_parameters())
        trained = [params[n] for n in ref.trainable]
        name_of = {id(p): n for n, p in zip(ref.trainable, trained)}
        inputs = {k: jt.array(v.astype(np.float64)) for k, v in ref.inputs.items()}
        opt = make_optimizer({"name": "adam", "lr": lr}, trained)
        for k in range(1, steps + 1):
            opt.zero_grad()
            value = weighted_loss(network(inputs["content"], inputs["style"], inputs["noise"]), weights)
            opt.backward(value)
            if k == 1:
                arrays["loss"] = to_numpy(value).reshape(1)
                # a parameter the loss does not reach has no .grad (torch: None): zeros, as compared
                arrays.update({f"grad/{name_of[id(p)]}": to_numpy(p.grad) if p.grad is not None
                               else np.zeros(tuple(p.shape), str(p.dtype)) for p in trained})
            opt.step()
            arrays.update({f"step{k}/param/{n}": to_numpy(params[n]) for n in ref.trainable})
        arrays["meta/dtypes"] = np.array(sorted({str(p.dtype) for p in trained}))
    return arrays


def main(argv=None) -> None:
    """Parse the arguments, run, write ``--out``/jittor.npz."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", type=Path, required=True, help="the MCCNet torch side's output folder")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    args = ap.parse_args(argv)
    arrays = float64_run(Reference(args.ref / "net.npz"), args.steps, args.lr)
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "jittor.npz", **arrays)


if __name__ == "__main__":
    main()
