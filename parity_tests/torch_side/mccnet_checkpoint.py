"""Torch side of ``test_harness_checkpoint_parts.py`` (runs in ``.venv-torch``): MCCNet's weights
as its release ships them, one file per part, for a spec's ``checkpoint = { part = file }``.

Builds ``models_ref.mccnet``'s ``Net(vgg, decoder)``, moves every weight off its seeded init
(10% of each tensor's spread, so a load that did nothing is seen), and writes what upstream's
``test_video.py`` loads with ``load_state_dict(torch.load(...))``: ``vgg_normalised.pth`` (the
whole VGG), ``decoder_iter_3.pth`` and ``mcc_module_iter_3.pth`` (the state dicts the training
script saves with ``torch.save``).
"""
import torch

from porter.prove.torch_side.torch_dump import deterministic, out_dir_from_argv
from models_ref.mccnet import net

SEED = 4321


def main():
    """Build, move, save the three files."""
    out = out_dir_from_argv()
    deterministic(SEED)
    network = net.Net(net.vgg, net.decoder)
    parts = {"vgg_normalised.pth": net.vgg, "decoder_iter_3.pth": net.decoder,
             "mcc_module_iter_3.pth": network.mcc_module}
    with torch.no_grad():
        for module in parts.values():
            for p in module.parameters():
                p.add_(0.1 * p.std() * torch.randn_like(p))
    for name, module in parts.items():
        torch.save(module.state_dict(), out / name)


if __name__ == "__main__":
    main()
