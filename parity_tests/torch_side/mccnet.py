"""Torch side of the MCCNet parity suite (runs in ``.venv-torch``; see ``test_mccnet.py``).

Writes into ``--out``, at a small spatial size (32x32, batch 2) with the full-width VGG-19:

* harness cases (:func:`porter.prove.torch_side.torch_dump.dump`):
  ``encoder.npz`` (``Net.encode_with_intermediate``: the five stage outputs, with the encoder
  unfrozen so its gradients are compared too), ``mcc.npz`` (``MCC_Module``), ``decoder.npz``,
  ``net.npz`` (``Net.forward`` with injected noise, its six losses and ``Ics``, the loss
  weighted as upstream's ``train.py`` weighs it, every parameter gradient and five Adam steps
  on the same batch), and ``net_f64.npz``: the same loss, gradients and steps in float64,
  stored as float64;
* ``coral.npz``: ``function.coral`` on two seeded images, and ``calc_mean_std`` of a feature;
* ``vgg_normalised.pth`` (the seeded VGG), ``decoder_iter_5.pth`` and ``mcc_module_iter_5.pth``
  (upstream's checkpoint layout, saved after the five steps);
* ``images/{content,style}/``: generated images, and ``transform.npz``: upstream's
  ``train_transform`` applied to them (crop size = load size, so the crop is deterministic);
  ``grid_batch.png``/``grid_gray.png``: ``save_image`` of the ``grid/*`` arrays.
"""
import copy

import numpy as np
import torch
from torchvision.utils import save_image

from porter.prove.torch_side.torch_dump import (deterministic, dump, make_inputs, out_dir_from_argv,
                                             seeded_array, to_numpy)
from parity_tests.torch_side.mccnet_data import make_folder
from models_ref.mccnet import function, net
from models_ref.mccnet.train import FlatFolderDataset, train_transform

SEED = 0
BATCH, SIZE = 2, 32
STEPS = 5
LR = 1e-4
# upstream train.py: 3000 * loss_n + content_weight * loss_c + style_weight * loss_s
#                    + 70 * l_identity1 + 1 * l_identity2 + 10e-5 * loss_tv
LOSS_WEIGHTS = np.array([3000.0, 3.0, 10.0, 70.0, 1.0, 10e-5], np.float32)


def seeded_vgg(seed):
    """Upstream's VGG with He-normal weights and zero biases (keeps activations O(1) through
    the 16 random layers; torch's default init shrinks them ~2x per layer)."""
    g = torch.Generator().manual_seed(seed)
    for m in net.vgg.modules():
        if isinstance(m, torch.nn.Conv2d):
            fan_in = m.weight[0].numel()
            with torch.no_grad():
                m.weight.normal_(0.0, (2.0 / fan_in) ** 0.5, generator=g)
                m.bias.zero_()
    return net.vgg


def seeded_decoder(seed):
    """Re-draw upstream's module-level decoder with torch's default init from ``seed``.

    ``net.decoder`` is built when ``net`` is imported, before any seeding, and torch's
    generator at import is not reproducible here (measured: two runs of this script drew
    different decoder weights), so without this the reference changed from run to run."""
    torch.manual_seed(seed)
    for m in net.decoder.modules():
        if isinstance(m, torch.nn.Conv2d):
            m.reset_parameters()
    return net.decoder


def condition_mcc(mcc_module, seed):
    """Move ``MCCN.g``'s bias away from zero (same signs, |b| in [0.02, 0.044)).

    ``normal()`` zero-means every channel, so MCC's divisor ``G_Fs_sum`` is exactly
    ``H*W*g.bias``: with torch's default init some |bias| is ~5e-5 and the divisor is a
    cancellation of O(1) terms, where any two float32 implementations differ by ~1e-3
    relative (measured: torch float32 vs float64 3e-4, Jittor vs torch 3e-3 at |b| = 5e-5).
    Away from zero the MCC module is as well conditioned as any other layer.
    """
    g = torch.Generator().manual_seed(seed)
    bias = mcc_module.MCCN.g.bias
    with torch.no_grad():
        mag = torch.empty(bias.shape).uniform_(0.02, 0.044, generator=g)
        bias.copy_(torch.where(bias < 0, -mag, mag))


def upstream_loss(outputs, _inputs):
    """The total loss of upstream's training loop from ``Net``'s six losses."""
    losses = outputs[:6]
    total = losses[0] * float(LOSS_WEIGHTS[0])
    for w, part in zip(LOSS_WEIGHTS[1:], losses[1:]):
        total = total + part * float(w)
    return total.sum()


def float64_reference(network, inputs, path):
    """The ``net.npz`` loss, gradients and Adam steps recomputed in float64 and stored in
    float64 (``loss``, ``grad/<name>``, ``step<k>/param/<name>`` for the trainable parameters).
    ``Net``'s losses normalise 2x2 relu5_1 maps whose near-constant channels divide by
    ~sqrt(eps), so its gradients amplify rounding ~1e5-fold (torch's own float32 gradients
    differ from these by up to ~1%): the Jittor side proves the port against these numbers,
    computed in float64 too."""
    network = network.double()
    tin = {k: torch.from_numpy(v).double() for k, v in inputs.items()}
    params = [(n, p) for n, p in network.named_parameters() if p.requires_grad]
    value = upstream_loss(network(tin["content"], tin["style"], tin["noise"]), tin)
    grads = torch.autograd.grad(value, [p for _, p in params], allow_unused=True)
    arrays = {"loss": as_float64(value).reshape(1)}
    for (n, p), g in zip(params, grads):
        arrays[f"grad/{n}"] = as_float64(g) if g is not None else np.zeros(tuple(p.shape), np.float64)
    opt = torch.optim.Adam([p for _, p in params], lr=LR)
    for k in range(1, STEPS + 1):
        opt.zero_grad()
        upstream_loss(network(tin["content"], tin["style"], tin["noise"]), tin).backward()
        opt.step()
        arrays.update({f"step{k}/param/{n}": as_float64(p) for n, p in params})
    np.savez(path, **arrays)


def as_float64(t):
    """A detached float64 numpy copy (``to_numpy`` would round to float32)."""
    return t.detach().cpu().double().numpy().copy()


def image_cases(out):
    """Generated image folders and upstream's transform applied to them."""
    arrays = {}
    for k, (part, shape) in enumerate((("content", (40, 48)), ("style", (48, 40)))):
        folder = out / "images" / part
        make_folder(folder, 3, seed=100 + k, height=shape[0], width=shape[1])
        ds = FlatFolderDataset(str(folder), train_transform(SIZE, SIZE))
        for i in range(len(ds)):
            arrays[f"{part}/{i}"] = to_numpy(ds[i])
    # save_image as upstream calls it (a batch, default grid), and a normalised 1-channel grid
    batch = seeded_array((3, 3, 6, 5), SEED + 600, "uniform", -0.1, 1.1)
    gray = seeded_array((5, 1, 4, 4), SEED + 601)
    save_image(torch.from_numpy(batch), out / "grid_batch.png")
    save_image(torch.from_numpy(gray), out / "grid_gray.png", nrow=2, padding=1, normalize=True,
               pad_value=0.5)
    arrays.update({"grid/batch": batch, "grid/gray": gray})
    np.savez(out / "transform.npz", **arrays)


def coral_case(out):
    """CORAL on two seeded images and ``calc_mean_std`` of a seeded feature map."""
    source = seeded_array((3, 16, 16), SEED + 500, "uniform")
    target = seeded_array((3, 12, 20), SEED + 501, "uniform")
    target[1] = 0.3 * target[1] + 0.5 * target[0]  # correlated channels: a non-trivial covariance
    feat = seeded_array((2, 4, 5, 6), SEED + 502) * 3.0 + 1.0
    mean, std = function.calc_mean_std(torch.from_numpy(feat))
    np.savez(out / "coral.npz", source=source, target=target,
             output=to_numpy(function.coral(torch.from_numpy(source), torch.from_numpy(target))),
             feat=feat, mean=to_numpy(mean), std=to_numpy(std),
             norm=to_numpy(function.mean_variance_norm(torch.from_numpy(feat))))


def main():
    out = out_dir_from_argv()
    deterministic(SEED)
    vgg = seeded_vgg(SEED + 1)
    seeded_decoder(SEED + 5)
    torch.save(vgg.state_dict(), out / "vgg_normalised.pth")
    network = net.Net(torch.nn.Sequential(*list(vgg.children())[:44]), net.decoder)
    network.train()
    condition_mcc(network.mcc_module, SEED + 2)

    image = (BATCH, 3, SIZE, SIZE)
    images = {"shape": image, "dist": "uniform"}

    encoder = copy.deepcopy(network)
    for name in ['enc_1', 'enc_2', 'enc_3', 'enc_4', 'enc_5']:
        for p in getattr(encoder, name).parameters():
            p.requires_grad = True
    dump(out / "encoder.npz", encoder, make_inputs({"x": images}, SEED + 10), seed=SEED + 1,
         forward=lambda m, a: m.encode_with_intermediate(a["x"]), float64_grads=True)

    # relu4_1 / relu5_1-like inputs: non-negative, O(1)
    c4 = {"shape": (BATCH, 512, SIZE // 8, SIZE // 8), "dist": "uniform", "high": 2.0}
    c5 = {"shape": (BATCH, 512, SIZE // 16, SIZE // 16), "dist": "uniform", "high": 2.0}
    dump(out / "mcc.npz", copy.deepcopy(network.mcc_module),
         make_inputs({"c4": c4, "c5": c5, "s4": c4, "s5": c5}, SEED + 20), seed=SEED + 2,
         forward=lambda m, a: m([a["c4"], a["c5"]], [a["s4"], a["s5"]]))
    dump(out / "decoder.npz", copy.deepcopy(network.decoder), make_inputs({"x": c4}, SEED + 30),
         seed=SEED + 3)

    inputs = make_inputs({"content": images, "style": images,
                          "noise": {"shape": image, "dist": "uniform", "low": -0.03, "high": 0.03}},
                         SEED + 40)
    float64_reference(copy.deepcopy(network), inputs, out / "net_f64.npz")
    dump(out / "net.npz", network, inputs, seed=SEED + 4, loss=upstream_loss, steps=STEPS,
         optimizer={"name": "adam", "lr": LR},
         extra={"meta/loss_weights": LOSS_WEIGHTS})
    # upstream's checkpoint layout, from the weights after the five steps
    torch.save(network.decoder.state_dict(), out / f"decoder_iter_{STEPS}.pth")
    torch.save(network.mcc_module.state_dict(), out / f"mcc_module_iter_{STEPS}.pth")

    coral_case(out)
    image_cases(out)


if __name__ == '__main__':
    main()
