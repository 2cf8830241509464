"""Torch side of ``test_harness_checkpoint.py`` (runs in ``.venv-torch``): a HiSD checkpoint
written the way upstream's trainer writes it, for a spec's ``checkpoint``.

Builds ``models_ref.hisd``'s ``HiSD_Trainer`` on :func:`models_ref.hisd.configs.tiny_config`
with a seed other than the specs' (so its weights are not what a spec's seeded build makes),
runs two ``update`` iterations on upstream-style draws (so ``gen_test``, the EMA, differs from
``gen``), and calls ``trainer.save(out, 1)``: ``gen_00000002.pt`` {gen, gen_test},
``dis_00000002.pt`` {dis}, ``optimizer.pt`` {dis, gen}.
"""
import numpy as np
import torch

from porter.prove.torch_side.torch_dump import deterministic, out_dir_from_argv
from models_ref.hisd.configs import sample_draws, tiny_config
from models_ref.hisd.trainer import HiSD_Trainer

SEED = 1234


def main():
    """Train two iterations, save as upstream does."""
    out = out_dir_from_argv()
    deterministic(SEED)
    cfg = tiny_config()
    trainer = HiSD_Trainer(cfg)
    for d in sample_draws(cfg, 2, SEED):
        x, y, z = (torch.from_numpy(np.asarray(d[k])) for k in ('x', 'y', 'z'))
        trainer.update(x, y, d['i'], d['j'], d['j_trg'], z)
    trainer.save(str(out), 1)


if __name__ == '__main__':
    main()
