"""StyleGAN2 parity: ``models_ref/stylegan2`` (torch) vs its conversion by ``porter`` (Jittor).

The torch side (``torch_side/stylegan2.py``) saved weights, inputs, outputs, every submodule's
output, and parameter gradients; here the converted code (``build/ported``, never edited by
hand) loads the same weights through ``shims`` and must reproduce them.

Randomness is injected, not re-drawn: ``noise_mode='random'`` draws go to a shared-seed numpy
stream on both sides (``patched_randn``), style-mixing cutoffs/latents and path-length noise
come from ``models_ref.stylegan2.parity_config.Draws`` passed as the loss's ``rand``.

Tolerances (float32 everywhere): the networks are 10-20 layers deep, each adding ~1e-7
relative rounding, with reductions over up to ~2k terms (demodulation, convolutions);
forward outputs agree to ~1e-6 relative, so 1e-5 leaves an order of magnitude.  Gradients
sum over the batch and spatial positions in a different order on each side: 1e-4.
"""
from pathlib import Path

import pytest

import jittor as jt

from porter.prove.common import SeededStream, compare
from porter.prove.model import ModelParity
from porter.prove.random_patches import patched_randn
from porter.prove.reference import Reference, load_weights
from porter.prove.tolerance import compare_sets, make_row, require
from porter.prove.ported import import_ported
from porter.prove.torchside import TorchSide
from models_ref.stylegan2 import parity_config as cfg

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = "stylegan2"
FWD = dict(rtol=1e-5, atol=1e-6)
GRAD = dict(rtol=1e-4, atol=1e-6)


TORCH_SIDE = TorchSide(HERE / "torch_side" / "stylegan2.py", SUITE,
                       (ROOT / "models_ref" / "stylegan2", ROOT / "porter" / "prove" / "torch_side" / "torch_dump.py",
                        ROOT / "porter" / "prove" / "common.py"))


@pytest.fixture(scope="module")
def refs() -> Path:
    return TORCH_SIDE.run()


@pytest.fixture(scope="module")
def sg():
    """The converted modules."""
    class Ported:
        networks = import_ported("models_ref.stylegan2.networks")
        loss = import_ported("models_ref.stylegan2.loss")
        training = import_ported("models_ref.stylegan2.training")
    return Ported


class Pair(jt.nn.Module):
    """Jittor twin of the torch side's container (same state_dict keys: G.*, D.*, G_ema.*)."""

    def __init__(self, G, D, G_ema=None):
        super().__init__()
        self.G = G
        self.D = D
        if G_ema is not None:
            self.G_ema = G_ema


def with_noise(fn):
    """Run ``fn`` with jt.randn on the shared-seed stream (fresh per call, as the torch side)."""
    def wrapped(m, inp):
        with patched_randn(SeededStream(cfg.NOISE_SEED)):
            return fn(m, inp)
    return wrapped


def new_loss(sg, pair):
    return sg.loss.StyleGAN2Loss("cpu", pair.G.mapping, pair.G.synthesis, pair.D,
                                 rand=cfg.Draws(jt.array), **cfg.LOSS)


def check(p: ModelParity, case: str) -> None:
    require(p.check_forward(f"{case}/forward", **FWD))
    require(p.check_grads(f"{case}/grads", **GRAD))


def test_mapping_network(refs, sg):
    p = ModelParity(SUITE, refs / "mapping.npz", sg.networks.MappingNetwork(**cfg.MAPPING),
                    forward=lambda m, i: (m(i["z"], i["c"], **cfg.MAPPING_FORWARD), m.w_avg))
    check(p, "mapping")


@pytest.mark.parametrize("case", list(cfg.SYNTHESIS_CASES))
def test_synthesis_network(refs, sg, case):
    kw = cfg.SYNTHESIS_CASES[case]
    p = ModelParity(SUITE, refs / f"{case}.npz", sg.networks.SynthesisNetwork(**cfg.SYNTHESIS),
                    forward=with_noise(lambda m, i: m(i["ws"], **kw)))
    check(p, case)


def test_generator_truncation(refs, sg):
    p = ModelParity(SUITE, refs / "generator.npz", sg.networks.Generator(**cfg.GENERATOR),
                    forward=lambda m, i: m(i["z"], i["c"], **cfg.GENERATOR_FORWARD))
    check(p, "generator_truncation")


def fp16_parity(refs, sg) -> ModelParity:
    return ModelParity(SUITE, refs / "generator_fp16.npz", sg.networks.Generator(**cfg.GENERATOR_FP16),
                       forward=lambda m, i: m(i["z"], i["c"], **cfg.GENERATOR_FORWARD))


# num_fp16_res=2: blocks 8 and 16 compute in float16 (weights and the image stay float32).
# float16 keeps 11 significant bits (unit roundoff 4.9e-4); the two frameworks round and
# accumulate in different orders through ~6 half-precision layers: rtol 2e-2 (measured 1.7e-3).
FP16 = dict(rtol=2e-2, atol=1e-4)
# The fp16 tests run fused: unfused, Jittor 1.3.11 cannot compile the lone ``float16 > int32``
# comparison in the fp16 blocks' activations (g++: ambiguous overload for operator>);
# fused, the comparison is compiled inside a kernel that converts first.
FUSED_FP16 = pytest.mark.fused


@FUSED_FP16
def test_generator_fp16_forward(refs, sg):
    require(fp16_parity(refs, sg).check_forward("generator_fp16/forward", **FP16))


@pytest.mark.xfail(strict=True, reason=(
    "measured: fp16-block gradients differ up to 11% (synthesis.b16.conv0.bias, a 512-term "
    "half-precision reduction; 14/45 arrays beyond 2e-2) while the fp16 forward matches to 1.7e-3 and "
    "the same code in float32 matches to 1e-6; the fp16-only steps (inf-norm pre-normalisation, its "
    "gradient checked to 1.5e-7 in float32) are right, so the gap is half-precision backward "
    "arithmetic (Jittor computes float16 gradients in float16; torch's CPU kernels accumulate "
    "wider), not yet pinned to one op"))
@pytest.mark.parity_only  # cold: ~150 s of fused float16 backward kernels for a known gap
@FUSED_FP16
def test_generator_fp16_grads(refs, sg):
    require(fp16_parity(refs, sg).check_grads("generator_fp16/grads", **FP16))


def test_generator_style_mixing(refs, sg):
    pair = Pair(sg.networks.Generator(**cfg.GENERATOR), sg.networks.Discriminator(**cfg.DISCRIMINATOR))
    p = ModelParity(SUITE, refs / "generator_mixing.npz", pair,
                    forward=with_noise(lambda m, i: new_loss(sg, m).run_G(i["z"], i["c"])))
    check(p, "generator_style_mixing")


@pytest.mark.parametrize("c_dim", [cfg.C, 0])
def test_discriminator(refs, sg, c_dim):
    name = "discriminator_c" if c_dim else "discriminator_noc"
    D = sg.networks.Discriminator(**dict(cfg.DISCRIMINATOR, c_dim=c_dim))
    forward = (lambda m, i: m(i["img"], i["c"])) if c_dim else (lambda m, i: m(i["img"], None))
    check(ModelParity(SUITE, refs / f"{name}.npz", D, forward=forward), name)


@pytest.mark.parametrize("phase", cfg.LOSS_PHASES)
def test_loss_phase_gradients(refs, sg, phase):
    """Gmain/Dmain: logistic losses; Greg: path length, Dreg: R1 (both second order)."""
    pair = Pair(sg.networks.Generator(**cfg.GENERATOR), sg.networks.Discriminator(**cfg.DISCRIMINATOR))

    def run(m, i):
        loss = new_loss(sg, m)
        value = loss.accumulate_gradients(phase, i["real_img"], i["real_c"], i["gen_z"], i["gen_c"], gain=1)
        return value, loss.pl_mean
    p = ModelParity(SUITE, refs / f"loss_{phase}.npz", pair, forward=with_noise(run))
    require(p.check_grads(f"loss_{phase}/grads", **GRAD))


def test_three_training_iterations(refs, sg):
    """Parameters of G, D and G_ema (and pl_mean) after each of three full iterations."""
    ref = Reference(refs / "train.npz")
    G = sg.networks.Generator(**cfg.GENERATOR)
    D = sg.networks.Discriminator(**cfg.DISCRIMINATOR)
    pair = Pair(G, D, sg.training.make_ema(G))
    load_weights(pair, ref.state_dict)
    G.requires_grad_(False)
    D.requires_grad_(False)
    phases = sg.training.make_phases(G, D, cfg.G_OPT, cfg.D_OPT, **cfg.REG_INTERVALS)
    loss = new_loss(sg, pair)
    comps = []
    for it in range(cfg.TRAIN_ITERATIONS):
        b = cfg.train_batch(it)
        with patched_randn(SeededStream(cfg.NOISE_SEED + it)):
            sg.training.training_iteration(phases, loss, G, pair.G_ema, it, jt.array(b["real_img"]),
                                           jt.array(b["real_c"]), [jt.array(z) for z in b["gen_z"]],
                                           [jt.array(c) for c in b["gen_c"]], cfg.EMA_BETA)
        state = pair.state_dict()
        want = {k: v for k, v in ref.group(f"iter{it + 1}/param/").items() if k in state}
        comps += compare_sets({k: state[k] for k in want}, want, what=f"iter{it + 1}", **GRAD)
        comps.append(compare(f"iter{it + 1}/pl_mean", loss.pl_mean.numpy(), ref[f"iter{it + 1}/pl_mean"], **GRAD))
    require(make_row(SUITE, "train_3_iterations/params", comps))
