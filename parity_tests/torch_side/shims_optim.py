"""Torch side of ``parity_tests/test_shims_optim.py``: optimizers and lr schedulers.

A linear least-squares problem (W: 3x5, b: 3) trained for STEPS steps per optimizer config;
saves the parameters after every step and the final ``state_dict`` state; per-group options
with two groups; lr sequences of each scheduler over 12 epochs.
"""
import argparse
import json
import os

import numpy as np
import torch

from parity_tests.torch_side.shims_optim_cases import CONFIGS

STEPS = 5
SCHEDULERS = {
    "step": ("StepLR", dict(step_size=3, gamma=0.5)),
    "multistep": ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.1)),
    "exponential": ("ExponentialLR", dict(gamma=0.9)),
    "cosine": ("CosineAnnealingLR", dict(T_max=4, eta_min=1e-3)),
    "lambda": ("LambdaLR", dict(lr_lambda="poly")),
}


def problem():
    rng = np.random.default_rng(1)
    return {"W0": rng.standard_normal((3, 5)).astype(np.float32),
            "b0": rng.standard_normal(3).astype(np.float32),
            "X": rng.standard_normal((8, 5)).astype(np.float32),
            "Y": rng.standard_normal((8, 3)).astype(np.float32)}


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
            for s in range(STEPS):
                opt.zero_grad()
                loss = ((X @ W.t() + b - Y) ** 2).mean()
                loss.backward()
                opt.step()
                traj[f"W{s}"] = W.detach().numpy().copy()
                traj[f"b{s}"] = b.detach().numpy().copy()
            sd = opt.state_dict()
            for idx, st in sd["state"].items():
                for k, v in st.items():
                    traj[f"state_{idx}_{k}"] = v.numpy() if torch.is_tensor(v) else np.asarray(v)
            opts = {k: v for k, v in sd["param_groups"][0].items()}
            traj["group0"] = np.array(json.dumps({k: v for k, v in opts.items()
                                                   if isinstance(v, (int, float, bool, list, tuple))}))
            np.savez(os.path.join(out, f"{name}{'_grouped' if grouped else ''}.npz"), **traj)
    lrs = {}
    for name, (cls, kw) in SCHEDULERS.items():
        W = torch.zeros(2, requires_grad=True)
        opt = torch.optim.SGD([{"params": [W]}, {"params": [torch.zeros(1, requires_grad=True)], "lr": 0.3}], lr=1.0)
        if kw.get("lr_lambda") == "poly":
            kw = dict(lr_lambda=lambda e: (1 - e / 20) ** 0.9)
        sch = getattr(torch.optim.lr_scheduler, cls)(opt, **kw)
        seq = [[g["lr"] for g in opt.param_groups]]
        for _ in range(12):
            opt.step()
            sch.step()
            seq.append([g["lr"] for g in opt.param_groups])
        lrs[name] = np.array(seq, np.float64)
    np.savez(os.path.join(out, "schedulers.npz"), **lrs)
    defaults = {}
    for cls in ("Adam", "AdamW", "SGD", "RMSprop"):
        d = getattr(torch.optim, cls)([torch.zeros(1, requires_grad=True)]).defaults
        defaults[cls] = {k: v for k, v in d.items() if isinstance(v, (int, float, bool, list, tuple))}
    with open(os.path.join(out, "defaults.json"), "w") as f:
        json.dump(defaults, f)


if __name__ == "__main__":
    main()
