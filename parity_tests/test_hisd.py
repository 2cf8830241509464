"""HiSD parity: the converted ``models_ref/hisd`` (real converter, ``build/ported``) vs torch.

The torch side (``torch_side/hisd.py``) saved every number compared here.  Covered: the
sub-networks' outputs and gradients (R1's second-order term included), the generator and
discriminator losses of the trainer with every parameter gradient, the trainable-parameter
list (no AdaIN tensors), five full ``HiSD_Trainer.update`` iterations (``gen``, ``gen_test``,
``dis``), and resuming from upstream's torch checkpoints for a sixth iteration.
"""
from typing import Dict, List, Tuple

import numpy as np
import pytest

import jittor as jt

from porter.prove.common import Comparison, compare
from porter.prove.model import ModelParity
from porter.prove.reference import Reference, load_weights, to_numpy, to_var
from porter.prove.tolerance import compare_sets, make_row, require
from porter.prove.ported import import_ported
from porter.prove.torchside import ROOT, TorchSide

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

SUITE = "hisd"
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "hisd.py", SUITE,
                       (ROOT / "models_ref" / "hisd", ROOT / "porter" / "prove" / "torch_side" / "torch_dump.py",
                        ROOT / "porter" / "prove" / "common.py"))

# float32 through the deepest sub-network (~10 convolutions and norms): ~1e-5 relative per layer.
FWD_RTOL, FWD_ATOL = 1e-4, 1e-6
# Gradients go back through the same layers once more; R1 (dis_real) twice.  Their rounding
# error scales with the gradients summed into them, not with their own value: a bias feeding an
# instance norm has a true gradient of 0 and a float32 value that is pure noise (~1e-6 of the
# largest gradient).  So every gradient is compared against the case's largest one.
GRAD_RTOL = 3e-4
# Training steps: each number may differ from torch's float32 run by a few times what rounding
# alone moves it (measured on the torch side; see compare_params).
GAP_FACTOR = 4.0
STEP_RTOL = 1e-5
ADAM_FLOOR = 1e-3  # of lr per iteration (see compare_params)

COMPONENTS = ["encoder", "decoder", "extractors", "translator", "mapper", "dis", "dis_real"]


@pytest.fixture(scope="module")
def ref_dir():
    """The torch side's output folder (run once, cached by content)."""
    return TORCH_SIDE.run()


@pytest.fixture(scope="module")
def hisd():
    """The converted trainer module (it imports the converted networks)."""
    return import_ported("models_ref.hisd.trainer")


@pytest.fixture(scope="module")
def cfg():
    """The small configuration both sides use (torch-free, so the port is the source itself)."""
    return import_ported("models_ref.hisd.configs").tiny_config()


@pytest.fixture(scope="module")
def trainer_ref(ref_dir):
    """``trainer.npz``."""
    return Reference(ref_dir / "trainer.npz")


def component(name, gen, dis, i, j):
    """The converted sub-network a case runs and how to call it (mirrors the torch side)."""
    cases = {
        "encoder": (gen.encoder, None),
        "decoder": (gen.decoder, None),
        "extractors": (gen.extractors, lambda m, a: m(a["x"], i)),
        "translator": (gen.translators[i], None),
        "mapper": (gen.mappers[i], lambda m, a: m(a["z"], j)),
        "dis": (dis, lambda m, a: m(a["x"], a["s"], a["y"], i)),
        "dis_real": (dis, lambda m, a: m.calc_dis_loss_real(a["x"], a["s"], a["y"], i, j)),
    }
    return cases[name]


@pytest.mark.parametrize("name", COMPONENTS)
def test_component(name, ref_dir, cfg):
    """Forward outputs and weighted-sum-loss gradients of each sub-network match torch."""
    ref = Reference(ref_dir / f"{name}.npz")
    i, j = (int(v) for v in ref["meta/args"])
    networks = import_ported("models_ref.hisd.networks")
    model, forward = component(name, networks.Gen(cfg), networks.Dis(cfg), i, j)
    kw = {"forward": forward} if forward is not None else {}
    p = ModelParity(SUITE, ref, model, **kw)
    require(p.check_forward(f"{name}/forward", rtol=FWD_RTOL, atol=FWD_ATOL))
    require(p.check_grads(f"{name}/grads", rtol=GRAD_RTOL, atol=grad_atol(ref.grads)))


def grad_atol(grads: Dict[str, np.ndarray]) -> float:
    """Absolute gradient tolerance: GRAD_RTOL of the largest gradient of the case."""
    return GRAD_RTOL * max(float(np.abs(g).max()) for g in grads.values())


# ----------------------------------------------------------------------------------------------
# The trainer


def new_trainer(hisd, cfg, ref):
    """A converted ``HiSD_Trainer`` holding torch's initial weights (gen_test = gen, as upstream)."""
    trainer = hisd.HiSD_Trainer(cfg)
    models = trainer.models
    load_weights(models.gen, ref.group("param/gen/"))
    load_weights(models.gen_test, ref.group("param/gen/"))
    load_weights(models.dis, ref.group("param/dis/"))
    return trainer


def draw(ref, k):
    """Iteration ``k``'s torch-side draws as ``update``'s arguments (x, y, i, j, j_trg, z)."""
    d = ref.group(f"draw{k}/")
    return (to_var(d["x"]), to_var(d["y"]), int(d["i"]), int(d["j"]), int(d["j_trg"]), to_var(d["z"]))


def set_requires_grad(module, flag):
    """What ``update`` does to a network before each of its two steps."""
    for p in module.parameters():
        p.requires_grad = flag


GEN_OUTPUTS = ["adv", "sty", "rec", "x_trg", "x_cyc", "s", "s_trg"]


def held_grads(trainer, part: str) -> Tuple[Dict[str, jt.Var], List[str]]:
    """The ``.grad`` that ``backward()`` (inside ``HiSD.forward``) left on the parameters of
    ``gen`` or ``dis``, by name (zeros where None), and the names of those left None (as torch)."""
    named = getattr(trainer.models, part).named_parameters()
    return ({n: p.grad if p.grad is not None else jt.zeros(p.shape) for n, p in named},
            sorted(n for n, p in named if p.grad is None))


def test_gen_losses(hisd, cfg, trainer_ref):
    """``HiSD.forward(mode='gen')``: the three losses, the translated/cycled images and styles,
    and the gradient its ``backward()`` gives every generator parameter (none, as in torch, for
    the other tag's translator and mapper)."""
    trainer = new_trainer(hisd, cfg, trainer_ref)
    models = trainer.models
    x, y, i, j, j_trg, z = draw(trainer_ref, 0)
    set_requires_grad(models.dis, False)
    trainer.gen_opt.zero_grad()
    outs = models((x, y, i, j, j_trg, z), mode="gen")
    comps = compare_sets(dict(zip(GEN_OUTPUTS, outs)), trainer_ref.group("gen/out/"), FWD_RTOL,
                         FWD_ATOL, "gen")
    grads, none = held_grads(trainer, "gen")
    want = trainer_ref.group("gen/grad/")
    comps += compare_sets(grads, want, GRAD_RTOL, grad_atol(want), "gen/grad")
    require(make_row(SUITE, "trainer/gen_losses", comps))
    assert none == sorted(trainer_ref.names("meta/gen_nograd"))


def test_dis_losses(hisd, cfg, trainer_ref):
    """``HiSD.forward(mode='dis')`` on the generator's detached outputs: the hinge + R1 loss and
    the gradient its ``backward()`` gives every discriminator parameter, R1's second-order term
    included (none for the other tag's head)."""
    trainer = new_trainer(hisd, cfg, trainer_ref)
    models = trainer.models
    x, y, i, j, j_trg, _ = draw(trainer_ref, 0)
    out = trainer_ref.group("gen/out/")
    set_requires_grad(models.gen, False)
    trainer.dis_opt.zero_grad()
    loss = models((x, to_var(out["x_trg"]), to_var(out["x_cyc"]), to_var(out["s"]),
                   to_var(out["s_trg"]), y, i, j, j_trg), mode="dis")
    comps = [compare("dis/loss", to_numpy(loss), trainer_ref["dis/out/loss"], FWD_RTOL, FWD_ATOL)]
    grads, none = held_grads(trainer, "dis")
    want = trainer_ref.group("dis/grad/")
    comps += compare_sets(grads, want, GRAD_RTOL, grad_atol(want), "dis/grad")
    require(make_row(SUITE, "trainer/dis_losses", comps))
    assert none == sorted(trainer_ref.names("meta/dis_nograd"))


def test_trainable_parameters(hisd, cfg, trainer_ref):
    """After a forward pass assigned the AdaIN weights, the port's parameters, state_dict keys and
    optimizer lists are torch's: the AdaIN tensors are none of them."""
    trainer = new_trainer(hisd, cfg, trainer_ref)
    models = trainer.models
    x, y, i, j, j_trg, z = draw(trainer_ref, 0)
    models.gen.decode(models.gen.translate(models.gen.encode(x), models.gen.extract(x, i), i))
    torch_gen = sorted(trainer_ref.group("gen/grad/"))
    assert sorted(n for n, _ in models.gen.named_parameters()) == torch_gen
    assert sorted(models.gen.state_dict()) == sorted(trainer_ref.group("param/gen/"))
    assert sorted(n for n, _ in models.dis.named_parameters()) == sorted(trainer_ref.group("dis/grad/"))
    in_gen_opt = sum(len(g["params"]) for g in trainer.gen_opt.param_groups)
    in_dis_opt = sum(len(g["params"]) for g in trainer.dis_opt.param_groups)
    assert (in_gen_opt, in_dis_opt) == (len(torch_gen), len(trainer_ref.group("dis/grad/")))


def compare_params(key: str, got: np.ndarray, ref: Reference, lr_k: float) -> Comparison:
    """One tensor of ``step<k>/<part>/<name>`` vs torch; ``lr_k`` = the largest learning rate
    times the number of iterations.

    Each element may differ by a few times what rounding alone moves the torch value: ``gap``,
    the tensor's largest distance from torch's float64 run and from its float32 twin started one
    ulp away (large where the float32 update is itself rounding noise: a bias feeding an instance
    norm has a true gradient of 0, and Adam scales its noise to ~lr per step), and by at least
    ``ADAM_FLOOR * lr_k``: Adam normalises every step to about lr, so a rounding difference in
    a gradient becomes a difference of a small fraction of lr in the parameter, whatever the
    gradient's size.  Adam also turns the sign of a gradient element within rounding of 0 into
    a step of +-lr (with beta1 = 0: lr * g / (|g| + eps)), and where that happens the change
    spreads a little, differently in every run; so a few elements (at most 1 in 100, or 2) may
    differ by up to 2 ``lr_k``.  A real divergence (a wrong update rule, a skipped or extra step,
    a wrong learning rate or EMA) moves whole tensors by a sizeable fraction of lr."""
    want = ref[key]
    gap = max(float(np.abs(want.astype(np.float64) - ref[f"{run}/{key}"]).max()) for run in ("f64", "twin"))
    atol = GAP_FACTOR * gap + ADAM_FLOOR * lr_k
    base = compare(key, got, want, STEP_RTOL, atol)
    if base.ok or base.got_shape != base.ref_shape:
        return base
    diff = np.abs(np.asarray(got, np.float64) - want)
    tol = atol + STEP_RTOL * float(np.abs(want).max())
    n, allowed = int((diff > tol).sum()), max(2, want.size // 100)
    ok = n <= allowed and float(diff.max()) <= 2 * lr_k
    return Comparison(key, ok, base.max_abs_err, base.max_rel_err, base.got_shape, base.ref_shape,
                      f"{n} element(s) beyond the rounding tolerance {tol:.2g} (up to {allowed} "
                      f"allowed, each within {2 * lr_k:.2g})")


def compare_step(ref, k, models, cfg) -> List[Comparison]:
    """gen, gen_test and dis after iteration ``k`` vs torch (see :func:`compare_params`)."""
    lr_k = k * max(cfg["lr_dis"], cfg["lr_gen_others"], cfg["lr_gen_mappers"])
    comps = []
    for part in ("gen", "gen_test", "dis"):
        state = getattr(models, part).state_dict()
        for name, want in ref.group(f"step{k}/{part}/").items():
            key = f"step{k}/{part}/{name}"
            if name not in state:
                comps.append(Comparison(key, False, float("inf"), float("inf"), (), want.shape, "missing in port"))
                continue
            comps.append(compare_params(key, to_numpy(state[name]), ref, lr_k))
    return comps


def compare_losses(ref, k, losses) -> List[Comparison]:
    """The four losses ``update`` returns after iteration ``k``."""
    key = f"step{k}/losses"
    atol = GAP_FACTOR * max(float(np.abs(ref[key] - ref[f"{run}/{key}"]).max()) for run in ("f64", "twin"))
    return [compare(f"{key}", np.asarray(losses, np.float64), ref[key], STEP_RTOL, atol)]


def test_five_iterations(hisd, cfg, trainer_ref):
    """Five ``update`` calls with torch's draws: both optimizer steps (Adam, per-group lr,
    ``clip_grad_norm_``, ``backward()`` inside ``forward``), R1, and the EMA into gen_test."""
    trainer = new_trainer(hisd, cfg, trainer_ref)
    comps: List[Comparison] = []
    for k in range(1, 6):
        losses = trainer.update(*draw(trainer_ref, k))
        step = (compare_losses(trainer_ref, k, losses)
                + compare_step(trainer_ref, k, trainer.models, cfg))
        comps += step
        if not all(c.ok for c in step):
            break
    require(make_row(SUITE, "trainer/five_iterations", comps))


def test_resume_from_torch_checkpoints(hisd, cfg, trainer_ref, ref_dir):
    """``resume`` reads upstream's ``gen_*.pt`` {gen, gen_test}, ``dis_*.pt`` {dis} and
    ``optimizer.pt`` {dis, gen} written by torch, and the sixth iteration then matches torch."""
    trainer = hisd.HiSD_Trainer(cfg)
    assert trainer.resume(str(ref_dir), cfg) == 5
    comps = []
    for part in ("gen", "gen_test", "dis"):
        state = getattr(trainer.models, part).state_dict()
        comps += compare_sets(state, trainer_ref.group(f"step5/{part}/"), 0.0, 0.0, f"resumed/{part}")
    losses = trainer.update(*draw(trainer_ref, 6))
    comps += compare_losses(trainer_ref, 6, losses) + compare_step(trainer_ref, 6, trainer.models, cfg)
    require(make_row(SUITE, "trainer/resume", comps))
