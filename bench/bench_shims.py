"""Shim overhead vs the nearest native Jittor call, at realistic sizes.

Prints one row per case: the median wall time of ``REPEATS`` runs (after a warm-up run that
compiles the kernels) for the shim and for Jittor's own call, and their ratio.  Layers are
timed forward + backward (gradient w.r.t. the input); optimizers one ``step(loss)``; I/O one
full load.  The native call is sometimes *wrong* (see docs in each shim); the comparison is
about cost only.  Run: ``env $(python3 -m porter.machine.env --exports) PYTHONPATH=. .venv/bin/python
bench/bench_shims.py``.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import shims  # noqa: E402  (applies the Jittor environment first)
import jittor as jt  # noqa: E402
from jittor import nn as jnn  # noqa: E402
from shims import nn  # noqa: E402

REPEATS = 5


def _time(fn) -> float:
    fn()
    jt.sync_all(True)
    runs = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        jt.sync_all(True)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def _fwd_bwd(layer, x):
    def run():
        y = layer(x)
        jt.grad(y.sum(), x).sync()
    return run


def cases():
    rng = np.random.default_rng(0)
    x = jt.array(rng.standard_normal((8, 64, 56, 56)).astype(np.float32))
    yield ("max_pool2d 3x3/2 pad1, 8x64x56x56", _fwd_bwd(lambda t: nn.max_pool2d(t, 3, 2, 1), x),
           _fwd_bwd(lambda t: jnn.max_pool2d(t, 3, 2, 1), x))
    yield ("avg_pool2d 3x3/2 pad1, 8x64x56x56", _fwd_bwd(lambda t: nn.avg_pool2d(t, 3, 2, 1), x),
           _fwd_bwd(lambda t: jnn.avg_pool2d(t, 3, 2, 1), x))
    yield ("adaptive_avg_pool2d ->7x7, 8x64x56x56", _fwd_bwd(lambda t: nn.adaptive_avg_pool2d(t, 7), x),
           _fwd_bwd(jnn.AdaptiveAvgPool2d(7), x))
    bn_s, bn_n = nn.BatchNorm2d(64), jnn.BatchNorm2d(64)
    yield ("BatchNorm2d train, 8x64x56x56", _fwd_bwd(bn_s, x), _fwd_bwd(bn_n, x))
    ln_s, ln_n = nn.LayerNorm([56, 56]), jnn.LayerNorm([56, 56])
    yield ("LayerNorm [56,56], 8x64x56x56", _fwd_bwd(ln_s, x), _fwd_bwd(ln_n, x))
    yield ("interpolate bilinear x2, 8x64x56x56",
           _fwd_bwd(lambda t: nn.interpolate(t, scale_factor=2, mode="bilinear"), x),
           _fwd_bwd(lambda t: jnn.interpolate(t, scale_factor=2, mode="bilinear"), x))
    xs = jt.array(rng.standard_normal((1, 4 * 64, 16, 16)).astype(np.float32))
    w = jt.array(rng.standard_normal((4 * 64, 32, 3, 3)).astype(np.float32))
    yield ("conv_transpose2d groups=4 (StyleGAN2 up), 1x256x16x16",
           _fwd_bwd(lambda t: nn.conv_transpose2d(t, w, stride=2, groups=4), xs),
           _fwd_bwd(lambda t: jnn.conv_transpose2d(t, w, stride=2, groups=4), xs))

    def model():
        jt.set_global_seed(0)
        return jnn.Sequential(jnn.Linear(512, 1024), jnn.ReLU(), jnn.Linear(1024, 512))

    inp = jt.array(rng.standard_normal((64, 512)).astype(np.float32))
    m_s, m_n = model(), model()
    o_s, o_n = shims.optim.Adam(m_s.parameters(), lr=1e-3), jt.optim.Adam(m_n.parameters(), lr=1e-3)
    yield ("Adam step(loss), MLP 1.05M params", lambda: (o_s.step((m_s(inp) ** 2).mean()), jt.sync(m_s.parameters())),
           lambda: (o_n.step((m_n(inp) ** 2).mean()), jt.sync(m_n.parameters())))

    tmp = tempfile.mkdtemp()
    big = {f"layer{i}.weight": rng.standard_normal((512, 512)).astype(np.float32) for i in range(10)}
    path = os.path.join(tmp, "ck.pth")
    shims.save(big, path)
    yield ("load 10x512x512 float32 .pth (10 MiB)", lambda: [v.sync() for v in shims.load(path).values()],
           lambda: [v.sync() for v in jt.load(path).values()])

    class Images:
        def __len__(self):
            return 512

        def __getitem__(self, i):
            return np.full((3, 32, 32), i, np.float32), i % 10

    class JtImages(jt.dataset.Dataset):
        def __init__(self):
            super().__init__()
            self.set_attrs(batch_size=32, total_len=512, shuffle=False)

        def __getitem__(self, i):
            return np.full((3, 32, 32), i, np.float32), i % 10

    loader = shims.data.DataLoader(Images(), batch_size=32)
    yield ("DataLoader 512 samples 3x32x32, batch 32", lambda: [b[0].sync() for b in loader],
           lambda: [b[0].sync() for b in JtImages()])


def main():
    print(f"jittor {jt.__version__}, median of {REPEATS} runs after a warm-up run")
    print(f"{'case':<52} {'shim ms':>9} {'native ms':>10} {'ratio':>7}")
    for name, shim, native in cases():
        t_s, t_n = _time(shim), _time(native)
        print(f"{name:<52} {t_s * 1e3:>9.2f} {t_n * 1e3:>10.2f} {t_s / t_n:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
