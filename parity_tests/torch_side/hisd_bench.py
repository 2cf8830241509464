"""Torch side of ``bench/bench_hisd.py``: time full ``HiSD_Trainer.update`` iterations, then the
forward pass users run for inference (``HiSD_Trainer.sample``: the EMA generator's four
translations, no gradients).

Runs in ``.venv-torch``; writes ``<out>/timing.json`` with the seconds of every timed
iteration and sample.  The draws (tags, attributes, batches, latents) come from
:func:`models_ref.hisd.configs.sample_draws`, the same function the Jittor side uses.
"""
import argparse
import json
import time

import torch

from porter.prove.torch_side.torch_dump import out_dir_from_argv
from models_ref.hisd import configs
from models_ref.hisd.configs import sample_draws
from models_ref.hisd.trainer import HiSD_Trainer


def main():
    out_dir = out_dir_from_argv()
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, required=True)
    ap.add_argument("--warmup", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default="tiny_config")
    args, _ = ap.parse_known_args()
    torch.manual_seed(args.seed)
    cfg = getattr(configs, args.config)()
    trainer = HiSD_Trainer(cfg)
    seconds = []
    for k, d in enumerate(sample_draws(cfg, args.warmup + args.iters, args.seed)):
        batch = (torch.from_numpy(d['x']), torch.from_numpy(d['y']), d['i'], d['j'], d['j_trg'],
                 torch.from_numpy(d['z']))
        t0 = time.perf_counter()
        trainer.update(*batch)  # returns .item() of the losses: the step has finished
        if k >= args.warmup:
            seconds.append(time.perf_counter() - t0)
    forward = []
    for k, d in enumerate(sample_draws(cfg, args.warmup + args.iters, args.seed + 1)):
        x, z = torch.from_numpy(d['x']), torch.from_numpy(d['z'])
        t0 = time.perf_counter()
        out = trainer.sample(x, x.flip([0]), d['j'], d['j_trg'], d['i'], z[:1], z[1:2])
        out[-1].sum().item()
        if k >= args.warmup:
            forward.append(time.perf_counter() - t0)
    (out_dir / "timing.json").write_text(json.dumps({
        "framework": "torch " + torch.__version__, "threads": torch.get_num_threads(),
        "seconds": seconds, "forward_seconds": forward}))


if __name__ == "__main__":
    main()
