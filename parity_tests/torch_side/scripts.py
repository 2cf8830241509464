"""Torch side of ``parity_tests/test_scripts_parity.py``: run every whole training script of
``parity_tests/scripts/`` as its user would, under ``.venv-torch``.

Per script ``NAME``: ``NAME.init.pt`` (the initial weights the script saved, since the file was
absent), ``NAME.json`` (its logged losses), ``NAME.ckpt.pt`` (its final checkpoint),
``NAME.spread.pt`` (torch's own float32 sensitivity: per checkpoint tensor, how far the same run
ends from it when its start is perturbed by one float32 rounding, :func:`spread_run`); and
``cases.json``: the scripts run, the command-line arguments each got (the Jittor side passes them
unchanged to the converted scripts) and the parameters its loss does not determine.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from porter.prove.common import map_nested
from porter.prove.torch_side.torch_dump import SPREAD_SEEDS, rounding_perturbed

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

#: extra arguments per script (the same on both sides).  bn_dropout_mlp: dropout masks come
#: from each framework's own random generator, so only p=0 can match step for step.
EXTRA_ARGS = {"bn_dropout_mlp": ["--dropout", "0"]}

#: parameters (``name`` or ``name[start:stop]`` of a flat tensor) the loss does not determine,
#: per script: (entries, bound on |jittor - torch|, why).  Their gradient is zero in exact
#: arithmetic, so what each framework computes is rounding noise (~1e-9), and Adam, dividing by
#: that noise's own magnitude, moves them by up to lr per step in a random direction: the two
#: agree only to within lr * steps; the losses do not depend on them.
#: * fast_style: a conv bias feeding an InstanceNorm (the norm subtracts the channel mean);
#: * transformer_lm: the key part of in_proj_bias (q.b_k adds the same logit to every key of a
#:   query, which softmax cancels).
UNDETERMINED = {
    "fast_style": (["conv1.conv2d.bias", "conv2.conv2d.bias", "res1.conv1.conv2d.bias", "res1.conv2.conv2d.bias"],
                   1e-2 * 5, "conv bias before InstanceNorm"),
    "transformer_lm": ([f"transformer_encoder.layers.{i}.self_attn.in_proj_bias[16:32]" for i in (0, 1)],
                       3e-3 * 6, "attention key bias"),
}


def _write_idx(path: Path, a) -> None:
    """An idx ``*-ubyte`` file as MNIST ships it: ``0 0 8 <ndim>``, big-endian dims, the bytes."""
    path.write_bytes(bytes([0, 0, 8, a.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in a.shape)
                     + a.astype("uint8").tobytes())


def write_mnist(root: Path) -> None:
    """A small MNIST in torchvision's raw layout (``root/MNIST/raw``): 14x14 "digits", a bright
    block per class on noise, 40 training and 16 test images."""
    import numpy as np
    rng = np.random.default_rng(7)
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", 40), ("t10k", 16)):
        labels = rng.integers(0, 10, n)
        images = rng.integers(0, 60, (n, 14, 14))
        for i, c in enumerate(labels):
            r, col = divmod(int(c), 5)
            images[i, 2 + 5 * r:6 + 5 * r, 1 + 2 * col:4 + 2 * col] += 190
        _write_idx(raw / f"{split}-images-idx3-ubyte", images)
        _write_idx(raw / f"{split}-labels-idx1-ubyte", labels)


#: scripts that read files the test writes: name -> (writer, argument naming the folder)
DATA = {"mnist_augment": (write_mnist, "--data")}


def _command(out: Path, name: str, stem: str) -> list:
    """The command line of one run of script ``name``, its files ``out/<stem>.*`` (``stem`` is the
    script's name for the run the Jittor side repeats, another for a perturbed run)."""
    return [sys.executable, str(SCRIPTS / f"{name}.py"), "--init", str(out / f"{stem}.init.pt"),
            "--log", str(out / f"{stem}.json"), "--ckpt", str(out / f"{stem}.ckpt.pt"),
            *EXTRA_ARGS.get(name, []), *data_args(out, name)]


def _finish(name: str, proc) -> None:
    """Exit with the script's output unless its run succeeded."""
    if proc.returncode != 0:
        sys.exit(f"{name}.py failed under torch:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")


def _spread(base, runs: list):
    """Nested like checkpoint ``base``: for each tensor, the elementwise largest ``|run - base|``
    over ``runs`` (float32); ``None`` for every other leaf."""
    if isinstance(base, dict):
        return {k: _spread(v, [r[k] for r in runs]) for k, v in base.items()}
    if isinstance(base, (list, tuple)):
        return [_spread(v, [r[i] for r in runs]) for i, v in enumerate(base)]
    if isinstance(base, torch.Tensor):
        return torch.stack([(r.double() - base.double()).abs() for r in runs]).amax(0).float()
    return None


def spread_run(out: Path, name: str) -> None:
    """``out/<name>.spread.pt``: script ``name`` run again from its saved start perturbed by one
    float32 rounding (a run per seed of :data:`SPREAD_SEEDS`, side by side), each final checkpoint's
    distance from ``<name>.ckpt.pt``.  Where a weight's updates amplify rounding (RMSprop's or
    Adam's first step divides a gradient near ``eps`` by its own magnitude, LBFGS's line search)
    two correct float32 runs end this far apart; the Jittor side allows a port a few times it."""
    init = torch.load(out / f"{name}.init.pt")
    runs = []
    for seed in SPREAD_SEEDS:
        stem = f"{name}.rounding{seed}"
        rng = np.random.default_rng(seed)  # every floating tensor of the nested checkpoint, one rounding off
        torch.save(map_nested(init, lambda v: isinstance(v, torch.Tensor) and v.is_floating_point(),
                              lambda t: rounding_perturbed(t, rng)), out / f"{stem}.init.pt")  # noqa: B023 (called within the iteration)
        runs.append((stem, subprocess.Popen(_command(out, name, stem), cwd=out, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True)))
    for _stem, proc in runs:
        stdout, stderr = proc.communicate()
        _finish(name, subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr))
    torch.save(_spread(torch.load(out / f"{name}.ckpt.pt"), [torch.load(out / f"{stem}.ckpt.pt") for stem, _ in runs]),
               out / f"{name}.spread.pt")


def data_args(out: Path, name: str) -> list:
    """``[flag, folder]`` for a script of :data:`DATA` (the folder written once, absolute: the
    Jittor side passes the same arguments), else ``[]``."""
    if name not in DATA:
        return []
    writer, flag = DATA[name]
    folder = out / f"{name}_data"
    if not folder.exists():
        writer(folder)
    return [flag, str(folder.resolve())]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))
    for name in names:
        _finish(name, subprocess.run(_command(out, name, name), cwd=out, capture_output=True, text=True))
        if not (out / f"{name}.init.pt").exists():
            sys.exit(f"{name}.py wrote no initial weights")
        spread_run(out, name)
    cases = {n: {"args": EXTRA_ARGS.get(n, []) + data_args(out, n),
                 "undetermined": UNDETERMINED.get(n, ([], 0.0, ""))} for n in names}
    (out / "cases.json").write_text(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
