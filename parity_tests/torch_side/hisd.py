"""Torch side of the HiSD parity suite (runs in ``.venv-torch``; see ``test_hisd.py``).

Writes into ``--out``:

* one harness case per sub-network (:func:`porter.prove.torch_side.torch_dump.dump`): ``encoder``,
  ``decoder``, ``extractors``, ``translator``, ``mapper``, ``dis`` (forward) and ``dis_real``
  (hinge + R1 loss, so its gradients contain R1's second-order term);
* ``trainer.npz``: the trainer's initial ``gen``/``dis`` weights; the generator and
  discriminator losses of ``HiSD.gen_losses``/``dis_losses`` with every parameter gradient
  (``backward()`` runs inside the trainer's ``forward``, as upstream); then five
  ``HiSD_Trainer.update`` iterations with the tags, attributes, latents and batches drawn
  upstream's way (:func:`models_ref.hisd.configs.sample_draws`) and saved as ``draw<k>/...``,
  and the ``gen``, ``gen_test``, ``dis`` weights and the four losses after each.  The same five
  iterations are repeated in float64 (``f64/...``) and in float32 from weights moved by one ulp
  (``twin/...``): how far these land from the reference measures how sensitive each number is
  to rounding (Adam turns gradients within rounding of 0 into +-lr steps, and the change
  spreads), which is what the Jittor side's tolerances scale with.
* the upstream checkpoints after the fifth iteration: ``gen_00000005.pt`` {gen, gen_test},
  ``dis_00000005.pt`` {dis}, ``optimizer.pt`` {dis, gen}; then a sixth iteration
  (``step6/...``, ``f64/step6/...``), which a port resumed from those checkpoints must repeat.
"""
import copy

import numpy as np
import torch

from porter.prove.torch_side.torch_dump import (deterministic, dump, make_inputs, out_dir_from_argv,
                                             to_numpy)
from models_ref.hisd.configs import sample_draws, tiny_config
from models_ref.hisd.trainer import HiSD_Trainer

SEED = 0
ITERATIONS = 5
SUB_I, SUB_J = 1, 1  # the tag and attribute the sub-network cases use


def component_cases(trainer, cfg, out):
    """One harness ``.npz`` per sub-network, with activations and weighted-sum-loss gradients."""
    gen, dis = trainer.models.gen, trainer.models.dis
    size = cfg['new_size']
    enc_c = cfg['encoder']['channels'][-1]
    half = size // 2 ** (len(cfg['encoder']['channels']) - 1)
    tag_dim = cfg['tags'][SUB_I]['tag_irrelevant_conditions_dim']
    batch = cfg['batch_size']
    image = (batch, cfg['input_dim'], size, size)
    feature = (batch, enc_c, half, half)
    style = (batch, cfg['style_dim'])
    cases = {
        'encoder': (gen.encoder, {'x': image}, None),
        'decoder': (gen.decoder, {'e': feature}, None),
        'extractors': (gen.extractors, {'x': image}, lambda m, a: m(a['x'], SUB_I)),
        'translator': (gen.translators[SUB_I], {'e': feature, 's': style}, None),
        'mapper': (gen.mappers[SUB_I], {'z': (batch, cfg['noise_dim'])}, lambda m, a: m(a['z'], SUB_J)),
        'dis': (dis, {'x': image, 's': style, 'y': (batch, tag_dim)},
                lambda m, a: m(a['x'], a['s'], a['y'], SUB_I)),
        'dis_real': (dis, {'x': image, 's': style, 'y': (batch, tag_dim)},
                     lambda m, a: m.calc_dis_loss_real(a['x'], a['s'], a['y'], SUB_I, SUB_J)),
    }
    # The tag and attribute go into each case's meta/args, so the Jittor side reads them.
    args = {'meta/args': np.array([SUB_I, SUB_J])}
    for k, (name, (model, specs, fwd)) in enumerate(cases.items()):
        kw = {'forward': fwd} if fwd is not None else {}
        dump(out / f'{name}.npz', model, make_inputs(specs, SEED + 100 * (k + 1)), seed=SEED + k,
             extra=args, **kw)


def tensors(d, dtype):
    """The draw's arrays as fresh tensors of ``dtype`` (indices as Python ints)."""
    return (torch.from_numpy(d['x']).to(dtype), torch.from_numpy(d['y']).to(dtype), d['i'],
            d['j'], d['j_trg'], torch.from_numpy(d['z']).to(dtype))


def state(prefix, module):
    """``{prefix + key: array}`` for a module's ``state_dict``."""
    return {prefix + k: to_numpy(v) for k, v in module.state_dict().items()}


def grads(prefix, module):
    """``{prefix + name: grad}`` for every parameter (zeros where torch has no gradient) and the
    names of those without one."""
    got, none = {}, []
    for n, p in module.named_parameters():
        if p.grad is None:
            none.append(n)
            got[prefix + n] = np.zeros(tuple(p.shape), np.float32)
        else:
            got[prefix + n] = to_numpy(p.grad)
    return got, none


def loss_case(trainer, d):
    """Generator and discriminator losses and gradients at the initial weights, flags as in update()."""
    models = trainer.models
    x, y, i, j, j_trg, z = tensors(d, torch.float32)
    arrays = {}
    for p in models.dis.parameters():
        p.requires_grad = False
    names = ['adv', 'sty', 'rec', 'x_trg', 'x_cyc', 's', 's_trg']
    outs = models((x, y, i, j, j_trg, z), mode='gen')
    arrays.update({f'gen/out/{n}': to_numpy(o) for n, o in zip(names, outs)})
    g, none = grads('gen/grad/', models.gen)
    arrays.update(g)
    arrays['meta/gen_nograd'] = np.array(none, dtype=str)
    for p in models.dis.parameters():
        p.requires_grad = True
    for p in models.gen.parameters():
        p.requires_grad = False
    x_trg, x_cyc, s, s_trg = outs[3:]
    loss = models((x, x_trg, x_cyc, s, s_trg, y, i, j, j_trg), mode='dis')
    arrays['dis/out/loss'] = to_numpy(loss).reshape(1)
    g, none = grads('dis/grad/', models.dis)
    arrays.update(g)
    arrays['meta/dis_nograd'] = np.array(none, dtype=str)
    return arrays


def train(trainer, draws, dtype, prefix, first):
    """One update per draw (iterations ``first``, ``first + 1``, ...); the weights of gen,
    gen_test, dis and the losses after each."""
    arrays = {}
    for k, d in enumerate(draws, start=first):
        losses = trainer.update(*tensors(d, dtype))
        m = trainer.models
        arrays[f'{prefix}step{k}/losses'] = np.array(losses, dtype=np.float64)
        for part in ('gen', 'gen_test', 'dis'):
            arrays.update(state(f'{prefix}step{k}/{part}/', getattr(m, part)))
    return arrays


def perturbed(trainer):
    """``trainer`` with every weight of gen and dis moved by one float32 ulp (seeded random
    direction; gen_test copies gen): a float32 computation that differs from the reference by
    rounding alone, like a port's."""
    rng = np.random.default_rng(SEED + 7)
    with torch.no_grad():
        for p in [*trainer.models.gen.parameters(), *trainer.models.dis.parameters()]:
            a = p.detach().numpy()
            toward = np.where(rng.random(a.shape) < 0.5, -np.inf, np.inf).astype(np.float32)
            p.copy_(torch.from_numpy(np.nextafter(a, toward)))
        trainer.models.gen_test.load_state_dict(trainer.models.gen.state_dict())
    return trainer


def main():
    out = out_dir_from_argv()
    deterministic(SEED)
    cfg = tiny_config()
    trainer = HiSD_Trainer(cfg)
    initial = {**state('param/gen/', trainer.models.gen), **state('param/dis/', trainer.models.dis)}

    component_cases(copy.deepcopy(trainer), cfg, out)

    draws = sample_draws(cfg, ITERATIONS + 2, SEED)
    arrays = dict(initial)
    for k, d in enumerate(draws):
        arrays.update({f'draw{k}/{n}': np.asarray(v) for n, v in d.items()})
    arrays.update(loss_case(copy.deepcopy(trainer), draws[0]))

    # .double() converts the parameters in place, so the copied optimizers still hold them.
    trainer64 = copy.deepcopy(trainer).double()
    twin = perturbed(copy.deepcopy(trainer))
    arrays.update(train(trainer, draws[1:ITERATIONS + 1], torch.float32, '', 1))
    trainer.save(str(out), ITERATIONS - 1)
    arrays.update(train(trainer, draws[ITERATIONS + 1:], torch.float32, '', ITERATIONS + 1))
    arrays.update(train(trainer64, draws[1:], torch.float64, 'f64/', 1))
    arrays.update(train(twin, draws[1:], torch.float32, 'twin/', 1))
    np.savez(out / 'trainer.npz', **arrays)


if __name__ == '__main__':
    main()
