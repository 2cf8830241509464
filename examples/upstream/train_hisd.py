"""HiSD's training iteration (github.com/imlixinyang/HiSD) on tiny synthetic data.

``core/train.py`` cannot be imported as a step (argparse, data loaders, tensorboard at import), so
its loop body is reproduced here, only its few lines: draw a tag ``i`` and two distinct attributes
``j, j_trg`` with ``random.sample``, take a batch ``(x, y)`` (synthetic images standing for ones
with attribute ``j``, and their tag-irrelevant conditions), then call ``core/trainer.py``'s
``HiSD_Trainer.update(x, y, i, j, j_trg)``: the generator losses and Adam step, the
discriminator losses (with its R1 penalty) and Adam step, and the ``update_average`` of the EMA
generator ``gen_test``.
The trainer is upstream's, built from a config shaped like ``configs/celeba-hq.yaml`` at 32x32
with narrow channels and two tags of two attributes each.
"""
import os
import random
import sys

import torch

import core  # HiSD's core/ imports its modules flat (``from networks import ...``)

sys.path.insert(0, os.path.dirname(os.path.abspath(core.__file__)))
from trainer import HiSD_Trainer  # noqa: E402

_TAGS = ["Bangs", "Eyeglasses"]


def _config() -> dict:
    """A small configs/celeba-hq.yaml: same optimisation settings, 32x32 images, narrow nets."""
    tags = [{"name": name, "tag_irrelevant_conditions_dim": 2,
             "attributes": [{"name": "with"}, {"name": "without"}]} for name in _TAGS]
    return {"weight_decay": 0, "beta1": 0.0, "beta2": 0.99, "init": "kaiming", "lr_dis": 1e-4,
            "lr_gen_mappers": 1e-6, "lr_gen_others": 1e-4, "adv_w": 1, "sty_w": 1, "rec_w": 1,
            "style_dim": 16, "noise_dim": 8, "input_dim": 3,
            "discriminators": {"channels": [16, 32, 32]}, "extractors": {"channels": [16, 32, 32]},
            "encoder": {"channels": [16, 32]}, "translators": {"channels": [32, 32, 32]},
            "decoder": {"channels": [32, 16]},
            "mappers": {"pre_channels": [16, 16], "post_channels": [16, 16]}, "tags": tags}


def build(seed: int = 0, batch_size: int = 2, img_size: int = 32):
    """Build upstream's ``HiSD_Trainer``; return ``step()``, one iteration of train.py's loop on a
    fresh synthetic batch (images in [-1, 1], conditions in {0, 1}) that returns the losses
    ``update`` returns (its ``loss_gen_adv/sty/rec`` and ``loss_dis_adv``).

    Before returning, ``update`` runs once for each (tag, attribute, target attribute): Adam makes
    a parameter's state at its first gradient, and each tag and target attribute trains its own
    translator and mapper branch, so without this warm-up the first steps that draw a new tag
    would add optimizer state that a graph watch reads as growth."""
    torch.manual_seed(seed)
    if not torch.cuda.is_available():  # gen_losses moves its noise with ``.cuda()``: keep it here
        type(torch.zeros(0)).cuda = lambda self, *args, **kwargs: self
    config = _config()
    trainer = HiSD_Trainer(config)
    attributes = [len(tag["attributes"]) for tag in config["tags"]]

    def update(i, j, j_trg):
        x = torch.rand(batch_size, config["input_dim"], img_size, img_size) * 2 - 1
        y = torch.randint(0, 2, (batch_size, config["tags"][i]["tag_irrelevant_conditions_dim"])).float()
        return trainer.update(x, y, i, j, j_trg)

    for i, n in enumerate(attributes):
        for j in range(n):
            for j_trg in range(n):
                if j != j_trg:
                    update(i, j, j_trg)
    rng = random.Random(seed)
    tags = list(range(len(attributes)))

    def step():
        """One iteration of train.py's ``while True`` body up to ``trainer.update``."""
        i = rng.sample(tags, 1)[0]
        j, j_trg = rng.sample(list(range(attributes[i])), 2)
        g_adv, g_sty, g_rec, d_adv = update(i, j, j_trg)
        return {"loss_gen_adv": g_adv, "loss_gen_sty": g_sty, "loss_gen_rec": g_rec, "loss_dis_adv": d_adv}

    return step
