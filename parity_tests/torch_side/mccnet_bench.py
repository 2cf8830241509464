"""Torch side of ``bench/bench_mccnet.py``: time ``Net`` forward + backward, then forward alone
(no gradients), in ``.venv-torch``.

Writes ``<out>/timing.json`` with the seconds of every timed iteration: ``Net.forward`` on a
(batch, 3, size, size) content/style pair with injected noise, upstream's weighted loss, and
``backward()`` into the decoder and MCC module.  Inputs come from the harness's numpy seeding,
the same arrays the Jittor side builds.
"""
import argparse
import json
import time

import torch

from porter.prove.torch_side.torch_dump import make_inputs, out_dir_from_argv
from parity_tests.torch_side.mccnet import LOSS_WEIGHTS, upstream_loss
from models_ref.mccnet import net


def bench_inputs(batch, size, seed):
    """Content, style (uniform images) and noise (uniform +-0.03), as numpy arrays."""
    image = (batch, 3, size, size)
    return make_inputs({"content": {"shape": image, "dist": "uniform"},
                        "style": {"shape": image, "dist": "uniform"},
                        "noise": {"shape": image, "dist": "uniform", "low": -0.03, "high": 0.03}}, seed)


def main():
    out = out_dir_from_argv()
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, required=True)
    ap.add_argument("--warmup", type=int, required=True)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    args, _ = ap.parse_known_args()
    torch.manual_seed(args.seed)
    network = net.Net(net.vgg, net.decoder)
    network.train()
    inputs = {k: torch.from_numpy(v) for k, v in bench_inputs(args.batch, args.size, args.seed).items()}
    seconds = []
    for k in range(args.warmup + args.iters):
        t0 = time.perf_counter()
        network.zero_grad()
        loss = upstream_loss(network(inputs["content"], inputs["style"], inputs["noise"]), inputs)
        loss.backward()
        if k >= args.warmup:
            seconds.append(time.perf_counter() - t0)
    forward = []  # the same forward and loss without gradients
    for k in range(args.warmup + args.iters):
        t0 = time.perf_counter()
        with torch.no_grad():
            upstream_loss(network(inputs["content"], inputs["style"], inputs["noise"]), inputs).item()
        if k >= args.warmup:
            forward.append(time.perf_counter() - t0)
    (out / "timing.json").write_text(json.dumps({
        "framework": "torch " + torch.__version__, "threads": torch.get_num_threads(),
        "loss_weights": [float(w) for w in LOSS_WEIGHTS], "seconds": seconds, "forward_seconds": forward}))


if __name__ == "__main__":
    main()
