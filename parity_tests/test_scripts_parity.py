"""Whole training scripts, converted unmodified: ``parity_tests/scripts/*.py`` are small torch
programs as users write them (data -> model -> training loop -> checkpoint saved and reloaded):
an MNIST-style CNN, a batch_first LSTM classifier, a word-level LSTM language model (manual SGD
through ``p.data``/``p.grad``), a character Transformer LM, a VAE, a DCGAN step, ESPCN
super-resolution (PixelShuffle), a siamese net with a contrastive loss, a fast-neural-style net
(InstanceNorm, Gram matrices), a GCN (dense adjacency), sine-wave prediction with LBFGS, a
BatchNorm + Dropout MLP, and torchvision MNIST with augmentation (``mnist_augment``).

``.venv-torch`` runs each script (``torch_side/scripts.py``); it saves its initial weights
because ``--init`` names a file that does not exist yet.  Here every script is converted with
the real converter (``porter.convert_path``, what ``jtport convert`` runs), run in a fresh
``.venv`` process with the same arguments, and loads those weights (the ``--init`` file exists
now) through ``shims.load``.  Each script draws its data and noise from seeded numpy
generators, and iterates without shuffling or with a numpy-made order, so both sides see the
same numbers; except ``mnist_augment``: it reads ``datasets.MNIST`` from idx files that the torch
side writes (``torch_side/scripts.py``, ``DATA``; the folder is passed to both sides as
``--data``) and shuffles and augments (``RandomCrop(padding)``, ``RandomHorizontalFlip``) from
torch's random stream after a ``torch.manual_seed``, so its losses match only if the port's
shuffle order and every crop and flip are torch's (``shims.random_torch``).  Measured: the
port's losses are within 1.0e-7 relative of torch's; torch itself with the next seed (another
order and other crops) differs by 0.2-4% at every step.  Compared: every logged loss and
metric, step by step, and the final checkpoint (written by ``shims.save``, read back by
``shims.load`` with torch's), each tensor within what float32 itself decides of it: torch runs
every script three more times from starts perturbed by one rounding (``NAME.spread.pt``), since
the torch side draws a new random start at each run and an optimizer's first step can turn a
gradient's last bits into a visible weight difference (:func:`_checkpoint_bound`).
"""
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import shims
from porter import convert_path
from parity_tests.conftest import FUSE_ENV
from parity_tests.run import jittor_env
from porter.prove.tolerance import ROUNDING_FACTOR
from porter.prove.processes import run_tracked
from porter.prove.results import Row, record
from porter.prove.torchside import TorchSide

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "parity_tests" / "scripts"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "scripts.py", "scripts", (SCRIPTS,))

# float32 on both sides; the two frameworks sum in different orders, so each loss differs by
# a few float32 ulps (~1e-7 relative) at the first step, and the optimizer carries the weight
# differences into the next steps (at most 12 steps per script).  Measured (results rows
# "scripts"): worst relative error 1.1e-5 (sine_lbfgs: LBFGS's line search amplifies), the
# others 1e-7 to 6e-7.  1e-4 leaves a 9x margin; a wrong op moves the losses by 1e-2 or more.
# The checkpoints use the same rtol with an absolute floor of 1e-5 for weights near zero, plus
# ROUNDING_FACTOR times torch's own spread over the tensor (see _checkpoint_bound).
RTOL, ATOL = 1e-4, 1e-6
CKPT_ATOL = 1e-5


@pytest.fixture(scope="module")
def torch_out() -> Path:
    return TORCH_SIDE.run()


@pytest.fixture(scope="module")
def ported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scripts") / "ported"
    report = convert_path(SCRIPTS, out)
    assert not report.errors, [f"{e.where()} {e.reason}" for e in report.errors]
    assert not report.unsupported, [f"{u.where()} {u.api}: {u.reason}" for u in report.unsupported]
    return out


def test_suite_has_every_script(torch_out):
    assert len(NAMES) >= 10
    assert sorted(json.loads((torch_out / "cases.json").read_text())) == NAMES


def _leaves(obj, path=""):
    """(path, leaf) pairs of a nested checkpoint: dicts, lists, tensors, numbers."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, f"{path}/{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, obj


def _as_array(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def _compare_logs(name, got, want):
    """Every logged number of ``got`` against torch's ``want`` (build/parity/results/scripts.json
    gets the worst errors); raises on a difference beyond RTOL/ATOL."""
    assert sorted(got) == sorted(want), f"{name}: logged keys differ"
    got_leaves, worst_abs, worst_rel, failure = dict(_leaves(got)), 0.0, 0.0, ""
    for path, w in _leaves(want):
        g = got_leaves[path]
        if isinstance(w, str):
            assert g == w, f"{name}{path}"
            continue
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        err = np.abs(g - w)
        worst_abs = max(worst_abs, float(err.max()))
        worst_rel = max(worst_rel, float((err / np.maximum(np.abs(w), ATOL)).max()))
        if not failure and not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            failure = f"{path}: got {g.tolist()}, torch {w.tolist()}"
    record(Row("scripts", name, "failed" if failure else "passed", worst_abs, worst_rel, detail=failure))
    assert not failure, f"{name}{failure}"


def _undetermined(key: str, entries, size: int) -> np.ndarray:
    """Mask of the elements of flat tensor ``key`` that ``entries`` (``name`` or
    ``name[start:stop]``, see UNDETERMINED in torch_side/scripts.py) exempt from the strict check."""
    mask = np.zeros(size, bool)
    for entry in entries:
        name, _, rng = entry.partition("[")
        if name == key:
            start, stop = (int(x) for x in rng.rstrip("]").split(":")) if rng else (0, size)
            mask[start:stop] = True
    return mask


def _checkpoint_bound(w: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """How far each element of a final weight ``w`` may sit from torch's: ``RTOL`` of it plus
    ``CKPT_ATOL``, plus :data:`ROUNDING_FACTOR` times the tensor's largest ``spread`` (torch's own:
    the same script from a start perturbed by one float32 rounding, ``torch_side/scripts.py``).
    Measured: RMSprop's first step is ``lr * g / (0.1 |g| + eps)``, so a gradient element near
    ``10 * eps`` (lstm_classifier: 9.9e-8 among gradients up to 1e-2) turns its float32 rounding
    (5e-11 here, torch's 1e-11) into 6.6e-6 of weight; torch's own perturbed runs move that
    element 4.6e-6, and which elements land there changes with the random start.  The largest
    spread of the tensor, not the element's own, because another machine's summation order
    picks other elements near that edge."""
    room = float(spread.max()) if spread.size else 0.0
    return RTOL * np.abs(w) + CKPT_ATOL + ROUNDING_FACTOR * room


def _run_converted(script: Path, args, cwd: Path):
    env = jittor_env()
    env["PYTHONPATH"] = str(ROOT)
    if os.environ.get(FUSE_ENV) != "1":
        env.setdefault("no_fuse", "1")  # one kernel per op, shared with the other suites (conftest.py)
    return run_tracked([sys.executable, script, *args], cwd, env, timeout=900)


@pytest.mark.parametrize("name", NAMES)
def test_converted_script_matches_torch(name, torch_out, ported, tmp_path):
    case = json.loads((torch_out / "cases.json").read_text())[name]
    extra, (free_keys, free_bound, _why) = case["args"], case["undetermined"]
    init = torch_out / f"{name}.init.pt"
    log, ckpt = tmp_path / f"{name}.json", tmp_path / f"{name}.ckpt.pt"
    proc = _run_converted(ported / f"{name}.py", ["--init", init, "--log", log, "--ckpt", ckpt, *extra], tmp_path)
    assert proc.returncode == 0, f"converted {name}.py failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
    want = json.loads((torch_out / f"{name}.json").read_text())
    got = json.loads(log.read_text())
    _compare_logs(name, got, want)
    losses = [v for v in want.values() if isinstance(v, list)][0]
    assert len(set(losses)) > 1, f"{name}: the logged losses never changed"

    want_ckpt, got_ckpt = dict(_leaves(shims.load(str(torch_out / f"{name}.ckpt.pt")))), \
        dict(_leaves(shims.load(str(ckpt))))
    spread = dict(_leaves(shims.load(str(torch_out / f"{name}.spread.pt"))))
    weights = {k: v for k, v in want_ckpt.items() if hasattr(v, "shape") and "optim" not in k}
    assert weights, f"{name}: no tensors in torch's checkpoint"
    for key, w in weights.items():
        assert key in got_ckpt, f"{name}: {key} missing from the converted script's checkpoint"
        g, w = _as_array(got_ckpt[key]).ravel(), _as_array(w).ravel()
        free = _undetermined(key.split("/")[-1], free_keys, w.size)
        assert np.abs(g[free] - w[free]).max(initial=0.0) <= free_bound, f"{name} {key}"
        firm_spread = _as_array(spread[key]).ravel()[~free]
        err, bound = np.abs(g[~free].astype(np.float64) - w[~free]), _checkpoint_bound(w[~free], firm_spread)
        worst = int(np.argmax(err - bound)) if err.size else 0
        assert (err <= bound).all(), (
            f"{name} checkpoint {key}: {int((err > bound).sum())}/{err.size} elements beyond the bound; "
            f"worst: element {worst}: got {g[~free][worst]:.8g}, torch {w[~free][worst]:.8g} (error "
            f"{err[worst]:.3g}, bound {bound[worst]:.3g}; torch's own spread over the tensor "
            f"{firm_spread.max(initial=0.0):.3g})")
