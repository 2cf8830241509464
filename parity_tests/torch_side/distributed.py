"""Torch side of ``parity_tests/test_distributed.py``.

* ``sampler.npz``: ``DistributedSampler`` indices per configuration, rank and epoch;
* ``data.npz``, ``init.pt``: the DDP script's dataset and initial weights;
* ``torch2.pt`` (+ ``.seen<rank>.npy``): ``parity_tests/distributed/ddp_train.py`` trained by
  torch's own launcher on two CPU processes (gloo over loopback).
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from torch.utils.data.distributed import DistributedSampler

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "distributed"))
from ddp_train import Net  # noqa: E402
from distributed_cases import DDP_DATA, shard_table  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)

    np.savez(out / "sampler.npz", **{k: np.array(v) for k, v in shard_table(DistributedSampler).items()})

    rng = np.random.default_rng(0)
    n, d_in, d_out = DDP_DATA
    np.savez(out / "data.npz", x=rng.standard_normal((n, d_in)).astype(np.float32),
             y=rng.standard_normal((n, d_out)).astype(np.float32))
    torch.manual_seed(0)
    torch.save(Net().state_dict(), out / "init.pt")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                    str(HERE.parent / "distributed" / "ddp_train.py"), "--data", str(out / "data.npz"),
                    "--init", str(out / "init.pt"), "--out", str(out / "torch2.pt")],
                   check=True, env=env, cwd=out)


if __name__ == "__main__":
    main()
