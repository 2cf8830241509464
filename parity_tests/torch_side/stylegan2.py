"""Torch side of the StyleGAN2 parity tests: runs ``models_ref/stylegan2`` and writes one
``.npz`` per case into ``--out`` (see ``models_ref/stylegan2/parity_config.py`` for the cases)."""
import torch

from models_ref.stylegan2 import loss as sg_loss
from models_ref.stylegan2 import networks, training
from porter.prove.torch_side import torch_dump
from porter.prove.common import SeededStream
from models_ref.stylegan2 import parity_config as cfg


def jitter(model, seed):
    """Move every parameter (and ``w_avg``) off its init so zeros (biases, noise strengths)
    and ones do not hide errors."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.add_(0.1 * torch.randn(p.shape, generator=g))
        for name, b in sorted(model.named_buffers()):
            if name.endswith("w_avg"):
                b.copy_(torch.randn(b.shape, generator=g))
    return model


class Pair(torch.nn.Module):
    """G and D (and G_ema) under one module so one state_dict holds all their weights."""

    def __init__(self, G, D, G_ema=None):
        super().__init__()
        self.G = G
        self.D = D
        if G_ema is not None:
            self.G_ema = G_ema


def new_loss(pair):
    """The loss over a pair with injected draws."""
    return sg_loss.StyleGAN2Loss(torch.device("cpu"), pair.G.mapping, pair.G.synthesis, pair.D,
                                 rand=cfg.Draws(torch.from_numpy), **cfg.LOSS)


def with_noise(fn):
    """Run ``fn`` with torch.randn on the shared-seed stream (fresh per call)."""
    def wrapped(m, inp):
        with torch_dump.patched_randn(SeededStream(cfg.NOISE_SEED)):
            return fn(m, inp)
    return wrapped


def dump_networks(out):
    """Mapping, synthesis, generator and discriminator cases."""
    torch_dump.deterministic(cfg.SEED)
    m = jitter(networks.MappingNetwork(**cfg.MAPPING), 1)
    torch_dump.dump(out / "mapping.npz", m, torch_dump.make_inputs(cfg.MAPPING_INPUTS, cfg.SEED),
                    forward=lambda m, i: (m(i["z"], i["c"], **cfg.MAPPING_FORWARD), m.w_avg), seed=cfg.SEED)

    for _k, (case, kw) in enumerate(cfg.SYNTHESIS_CASES.items()):
        s = jitter(networks.SynthesisNetwork(**cfg.SYNTHESIS), 2)
        torch_dump.dump(out / f"{case}.npz", s, torch_dump.make_inputs(cfg.SYNTHESIS_INPUTS, cfg.SEED),
                        forward=with_noise(lambda m, i, kw=kw: m(i["ws"], **kw)), seed=cfg.SEED)

    G = jitter(networks.Generator(**cfg.GENERATOR), 3)
    torch_dump.dump(out / "generator.npz", G, torch_dump.make_inputs(cfg.GENERATOR_INPUTS, cfg.SEED),
                    forward=lambda m, i: m(i["z"], i["c"], **cfg.GENERATOR_FORWARD), seed=cfg.SEED)

    G16 = jitter(networks.Generator(**cfg.GENERATOR_FP16), 3)
    torch_dump.dump(out / "generator_fp16.npz", G16, torch_dump.make_inputs(cfg.GENERATOR_INPUTS, cfg.SEED),
                    forward=lambda m, i: m(i["z"], i["c"], **cfg.GENERATOR_FORWARD), seed=cfg.SEED)

    pair = Pair(G, jitter(networks.Discriminator(**cfg.DISCRIMINATOR), 4))

    def mixing(m, i):
        return new_loss(m).run_G(i["z"], i["c"])
    torch_dump.dump(out / "generator_mixing.npz", pair, torch_dump.make_inputs(cfg.GENERATOR_INPUTS, cfg.SEED),
                    forward=with_noise(mixing), seed=cfg.SEED)

    D = jitter(networks.Discriminator(**cfg.DISCRIMINATOR), 5)
    torch_dump.dump(out / "discriminator_c.npz", D, torch_dump.make_inputs(cfg.D_INPUTS, cfg.SEED),
                    forward=lambda m, i: m(i["img"], i["c"]), seed=cfg.SEED)
    D0 = jitter(networks.Discriminator(**dict(cfg.DISCRIMINATOR, c_dim=0)), 6)
    torch_dump.dump(out / "discriminator_noc.npz", D0, {"img": torch_dump.make_inputs(cfg.D_INPUTS, cfg.SEED)["img"]},
                    forward=lambda m, i: m(i["img"], None), seed=cfg.SEED)


def dump_losses(out):
    """Each loss phase's value and its gradient for every G and D parameter."""
    for phase in cfg.LOSS_PHASES:
        torch_dump.deterministic(cfg.SEED)
        pair = Pair(jitter(networks.Generator(**cfg.GENERATOR), 7),
                    jitter(networks.Discriminator(**cfg.DISCRIMINATOR), 8))

        def run(m, i, phase=phase):
            loss = new_loss(m)
            value = loss.accumulate_gradients(phase, i["real_img"], i["real_c"], i["gen_z"], i["gen_c"], gain=1)
            return value, loss.pl_mean
        torch_dump.dump(out / f"loss_{phase}.npz", pair, torch_dump.make_inputs(cfg.LOSS_INPUTS, cfg.SEED),
                        forward=with_noise(run), seed=cfg.SEED, record_acts=False)


def dump_training(out):
    """Three full training iterations (all four phases, lazy regularisation, Adam, G_ema)."""
    torch_dump.deterministic(cfg.SEED)
    G = jitter(networks.Generator(**cfg.GENERATOR), 9)
    D = jitter(networks.Discriminator(**cfg.DISCRIMINATOR), 10)
    pair = Pair(G, D, training.make_ema(G))
    arrays = {f"param/{k}": torch_dump.to_numpy(v) for k, v in pair.state_dict().items()}
    G.requires_grad_(False)
    D.requires_grad_(False)
    phases = training.make_phases(G, D, cfg.G_OPT, cfg.D_OPT, **cfg.REG_INTERVALS)
    loss = new_loss(pair)
    for it in range(cfg.TRAIN_ITERATIONS):
        b = {k: (torch.from_numpy(v) if not isinstance(v, list) else [torch.from_numpy(x) for x in v])
             for k, v in cfg.train_batch(it).items()}
        with torch_dump.patched_randn(SeededStream(cfg.NOISE_SEED + it)):
            training.training_iteration(phases, loss, G, pair.G_ema, it, b["real_img"], b["real_c"],
                                        b["gen_z"], b["gen_c"], cfg.EMA_BETA)
        arrays.update({f"iter{it + 1}/param/{k}": torch_dump.to_numpy(v) for k, v in pair.state_dict().items()})
        arrays[f"iter{it + 1}/pl_mean"] = torch_dump.to_numpy(loss.pl_mean).reshape(1)
    import numpy as np
    np.savez(out / "train.npz", **arrays)


def main():
    """Write every case."""
    out = torch_dump.out_dir_from_argv()
    dump_networks(out)
    dump_losses(out)
    dump_training(out)


if __name__ == "__main__":
    main()
