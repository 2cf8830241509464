"""Torch side of ``parity_tests/test_shims_memory.py``: StyleGAN2's EMA update.

``p_ema.copy_(p.lerp(p_ema, beta))`` for parameters and ``b_ema.copy_(b)`` for buffers, over
several steps with both lerp branches (beta >= 0.5 and < 0.5).
"""
import argparse
import os

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3)
    res = {}
    for tag, beta in (("hi", 0.999), ("mid", 0.5), ("lo", 0.3)):
        src = [rng.standard_normal((4, 3)).astype(np.float32) for _ in range(3)]
        ema = rng.standard_normal((4, 3)).astype(np.float32)
        res[f"{tag}_ema0"] = ema
        p_ema = torch.tensor(ema)
        for i, s in enumerate(src):
            res[f"{tag}_src{i}"] = s
            p_ema.copy_(torch.tensor(s).lerp(p_ema, beta))
            res[f"{tag}_ema{i + 1}"] = p_ema.numpy().copy()
    np.savez(os.path.join(out, "ema.npz"), **res)


if __name__ == "__main__":
    main()
