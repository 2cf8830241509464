"""Load checkpoints written by the *converted* MCCNet training script back into the torch reference.

Runs in ``.venv-torch``: ``mccnet_load.py --out DIR --ckpt_dir D --iter N`` loads
``D/decoder_iter_N.pth`` into upstream's ``decoder`` and ``D/mcc_module_iter_N.pth`` into an
``MCC_Module(512)``, both with ``load_state_dict`` (strict: every key, no extra, right shapes),
then writes the loaded ``state_dict``s to ``DIR/loaded.npz`` (``decoder/<key>``,
``mcc_module/<key>``) for the Jittor side to compare with what it saved.
"""
import argparse
from pathlib import Path

import numpy as np
import torch

from porter.prove.torch_side.torch_dump import out_dir_from_argv, to_numpy
from models_ref.mccnet import net


def main():
    out = out_dir_from_argv()
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt_dir", type=Path, required=True)
    ap.add_argument("--iter", type=int, required=True)
    args, _ = ap.parse_known_args()
    modules = {"decoder": net.decoder, "mcc_module": net.MCC_Module(512)}
    arrays = {}
    for name, module in modules.items():
        path = args.ckpt_dir / f"{name}_iter_{args.iter}.pth"
        module.load_state_dict(torch.load(path))
        arrays.update({f"{name}/{k}": to_numpy(v) for k, v in module.state_dict().items()})
    np.savez(out / "loaded.npz", **arrays)


if __name__ == "__main__":
    main()
