"""Torch side of ``parity_tests/test_shims_optim_families.py``: the optimizers of ``shims.optim``'s optimizer families.

The least-squares problem of ``shims_optim.py`` (W: 3x5, b: 3); per configuration, one and two
param groups: the parameters after every step, the ``state_dict`` after STEPS steps (state and
options), a torch checkpoint of it (``torch.save``) and the parameters after RESUME more steps;
the ``defaults`` of every optimizer class.
"""
import argparse
import json
import os

import numpy as np
import torch

from parity_tests.torch_side.shims_optim import problem
from parity_tests.torch_side.shims_optim_families_cases import CONFIGS, RESUME, STEPS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    data = problem()
    np.savez(os.path.join(out, "problem.npz"), **data)
    X, Y = torch.tensor(data["X"]), torch.tensor(data["Y"])
    for name, (cls, kw) in CONFIGS.items():
        for grouped in (False, True):
            W = torch.tensor(data["W0"], requires_grad=True)
            b = torch.tensor(data["b0"], requires_grad=True)
            params = [{"params": [W]}, {"params": [b], "lr": kw["lr"] * 0.5}] if grouped else [W, b]
            opt = getattr(torch.optim, cls)(params, **kw)
            traj = {}
            tag = f"{name}{'_grouped' if grouped else ''}"
            for s in range(STEPS + RESUME):
                if s == STEPS:
                    sd = opt.state_dict()
                    torch.save({"opt": sd, "W": W.detach(), "b": b.detach()}, os.path.join(out, f"{tag}.pth"))
                    for idx, st in sd["state"].items():
                        for k, v in st.items():
                            traj[f"state_{idx}_{k}"] = v.numpy().copy() if torch.is_tensor(v) else np.asarray(v)
                    traj["group0"] = np.array(json.dumps({k: v for k, v in sd["param_groups"][0].items()
                                                          if isinstance(v, (int, float, bool, list, tuple))}))
                opt.zero_grad()
                loss = ((X @ W.t() + b - Y) ** 2).mean()
                loss.backward()
                opt.step()
                traj[f"W{s}"] = W.detach().numpy().copy()
                traj[f"b{s}"] = b.detach().numpy().copy()
            np.savez(os.path.join(out, f"{tag}.npz"), **traj)
    defaults = {}
    for cls in sorted({c for c, _ in CONFIGS.values()}):
        d = getattr(torch.optim, cls)([torch.zeros(1, requires_grad=True)]).defaults
        defaults[cls] = {k: v for k, v in d.items() if isinstance(v, (int, float, bool, list, tuple))}
    with open(os.path.join(out, "defaults.json"), "w") as f:
        json.dump(defaults, f)


if __name__ == "__main__":
    main()
