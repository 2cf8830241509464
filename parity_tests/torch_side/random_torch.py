"""Torch side of ``parity_tests/test_random_torch.py``: torch's CPU random draws, sampler orders
and DataLoader shuffles for fixed seeds, written to ``draws.npz`` (one array per name)."""
import argparse
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, RandomSampler, SubsetRandomSampler, WeightedRandomSampler

from parity_tests.torch_side import random_torch_cases as cases


class Drawing:
    """Each sample draws one float from torch's global stream (as a random transform does)."""

    def __len__(self):
        return cases.DRAWING_LEN

    def __getitem__(self, i):
        return torch.tensor([float(i), torch.rand(1).item()], dtype=torch.float64)


def primitives(seed, out):
    torch.manual_seed(seed)
    out[f"int64/{seed}"] = np.array([torch.empty((), dtype=torch.int64).random_().item() for _ in range(5)])
    out[f"rand32/{seed}"] = torch.rand(cases.N_FLOAT).numpy()
    out[f"rand64/{seed}"] = torch.rand(cases.N_FLOAT // 4, dtype=torch.float64).numpy()
    for lo, hi in cases.RANDINT:
        torch.manual_seed(seed)
        out[f"randint/{seed}/{lo}/{hi}"] = torch.randint(lo, hi, size=(cases.N_INT,)).numpy()
    for k, (a, b) in enumerate(cases.UNIFORM):
        torch.manual_seed(seed)
        out[f"uniform32/{seed}/{k}"] = torch.empty(cases.N_FLOAT).uniform_(a, b).numpy()
        out[f"uniform64/{seed}/{k}"] = torch.empty(cases.N_FLOAT // 4, dtype=torch.float64).uniform_(a, b).numpy()
    for n in cases.PERM_SIZES:
        torch.manual_seed(seed)
        out[f"randperm/{seed}/{n}"] = torch.randperm(n).numpy()
    for n in cases.NORMAL_SIZES:
        torch.manual_seed(seed)
        values = [torch.empty(n).normal_().numpy(), torch.empty(3).normal_().numpy()]
        out[f"normal/{seed}/{n}"] = np.concatenate(values + [torch.rand(1).numpy()])
    torch.manual_seed(seed)  # interleaved, as torchvision's transforms draw
    mixed = []
    for _ in range(20):
        mixed += [torch.rand(1).item(), torch.randint(0, 7, size=(1,)).item(),
                  torch.empty(1).uniform_(-30.0, 45.0).item(), *torch.randperm(4).tolist(),
                  float(torch.empty((), dtype=torch.int64).random_().item() % 1000)]
    out[f"mixed/{seed}"] = np.array(mixed)
    g = torch.Generator().manual_seed(seed)
    out[f"gen/{seed}"] = np.array([g.initial_seed() % 2 ** 32, g.initial_seed() >> 32,
                                   *torch.randperm(33, generator=g).tolist(),
                                   *torch.randint(0, 10, size=(5,), generator=g).tolist()])


def samplers(seed, out):
    for kind in ("none", "gen"):
        for name, make in (("perm", lambda g: RandomSampler(range(10), generator=g)),
                           ("n25", lambda g: RandomSampler(range(10), num_samples=25, generator=g)),
                           ("n20", lambda g: RandomSampler(range(10), num_samples=20, generator=g)),
                           ("repl70", lambda g: RandomSampler(range(10), replacement=True, num_samples=70,
                                                              generator=g)),
                           ("subset", lambda g: SubsetRandomSampler([3, 5, 7, 9, 11, 13], generator=g)),
                           ("weighted", lambda g: WeightedRandomSampler(cases.WEIGHTS, 30, generator=g))):
            torch.manual_seed(seed)
            g = None if kind == "none" else torch.Generator().manual_seed(seed + 1)
            s = make(g)
            order = [i for _ in range(cases.EPOCHS) for i in s]
            out[f"sampler/{name}/{kind}/{seed}"] = np.array(order + [torch.rand(1).item()])
        torch.manual_seed(seed)
        g = None if kind == "none" else torch.Generator().manual_seed(seed + 1)
        dl = DataLoader(list(range(13)), batch_size=4, shuffle=True, generator=g)
        order = [int(i) for _ in range(cases.EPOCHS) for b in dl for i in b]
        out[f"loader/{kind}/{seed}"] = np.array(order + [torch.rand(1).item()])
    for workers, persistent in ((0, False), (2, False), (2, True)):
        torch.manual_seed(seed)
        dl = DataLoader(Drawing(), batch_size=2, shuffle=True, num_workers=workers,
                        persistent_workers=persistent)
        batches = [b.numpy() for _ in range(2) for b in dl]
        after = torch.rand(1, dtype=torch.float64)[None].repeat(1, 2).numpy()
        out[f"drawing/{workers}/{persistent}/{seed}"] = np.concatenate(batches + [after])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out_dir = ap.parse_args().out
    os.makedirs(out_dir, exist_ok=True)
    out = {"fresh_generator_seed": np.array(torch.Generator().initial_seed())}
    for seed in cases.SEEDS:
        primitives(seed, out)
    for seed in cases.SEEDS[:3]:
        samplers(seed, out)
    np.savez(os.path.join(out_dir, "draws.npz"), **out)


if __name__ == "__main__":
    main()
