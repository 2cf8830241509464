"""Small HiSD configurations and training draws for tests and benchmarks (numpy only: no
torch, no Jittor, so both frameworks import this file unchanged).

Same keys as upstream's ``configs/celeba-hq.yaml``; channels and resolution are reduced so a
full trainer iteration runs in well under a second on two CPU cores.  Learning rates, Adam
betas, loss weights and the init are upstream's.
"""
import random

import numpy as np


def _tag(name, attributes, irrelevant_dim=2):
    return {'name': name, 'tag_irrelevant_conditions_dim': irrelevant_dim,
            'attributes': [{'name': a, 'filename': '%s_%s.txt' % (name, a)} for a in attributes]}


def tiny_config():
    """64x64 images, two tags with two attributes each, channels of 8-16."""
    return {
        'batch_size': 2,
        'weight_decay': 0,
        'beta1': 0.0,
        'beta2': 0.99,
        'init': 'kaiming',
        'lr_dis': 0.0001,
        'lr_gen_mappers': 0.000001,
        'lr_gen_others': 0.0001,
        'adv_w': 1,
        'sty_w': 1,
        'rec_w': 1,
        'style_dim': 8,
        'noise_dim': 8,
        'discriminators': {'channels': [8, 16, 16, 16]},
        'extractors': {'channels': [8, 16, 16, 16]},
        'encoder': {'channels': [8, 16]},
        'translators': {'channels': [16, 16, 16]},
        'decoder': {'channels': [16, 8]},
        'mappers': {'pre_channels': [8, 16, 16], 'post_channels': [16, 16, 16]},
        'tags': [_tag('Bangs', ['with', 'without']),
                 _tag('Eyeglasses', ['with', 'without'])],
        'input_dim': 3,
        'new_size': 64,
        'crop_image_height': 64,
        'crop_image_width': 64,
    }



def celeba_hq_config(batch_size=2):
    """Upstream's ``configs/celeba-hq.yaml`` networks as they train: 128x128 images, its three tags
    (Bangs, Eyeglasses, HairColor), its channels (discriminators and extractors up to 2048), style
    256, noise 32.  Only the batch is smaller (upstream: 8), so that benchmarks on a CPU finish."""
    cfg = tiny_config()
    cfg.update({
        'batch_size': batch_size,
        'style_dim': 256,
        'noise_dim': 32,
        'discriminators': {'channels': [64, 128, 256, 512, 1024, 2048]},
        'extractors': {'channels': [64, 128, 256, 512, 1024, 2048]},
        'encoder': {'channels': [64, 128, 256]},
        'translators': {'channels': [64] * 8},
        'decoder': {'channels': [256, 128, 64]},
        'mappers': {'pre_channels': [256, 256, 256], 'post_channels': [256, 256, 256]},
        'tags': [_tag('Bangs', ['with', 'without']), _tag('Eyeglasses', ['with', 'without']),
                 _tag('HairColor', ['black', 'blond', 'brown'])],
        'new_size': 128,
        'crop_image_height': 128,
        'crop_image_width': 128,
    })
    return cfg


def micro_config():
    """``tiny_config`` shrunk further (32x32, channels 4-8, one translator block) for runs of
    hundreds of iterations, such as watching Jittor's graph for growth."""
    cfg = tiny_config()
    cfg.update({
        'style_dim': 4,
        'noise_dim': 4,
        'discriminators': {'channels': [4, 8, 8]},
        'extractors': {'channels': [4, 8, 8]},
        'encoder': {'channels': [4, 8]},
        'translators': {'channels': [8, 8]},
        'decoder': {'channels': [8, 4]},
        'mappers': {'pre_channels': [4, 8], 'post_channels': [8, 8]},
        'new_size': 32,
        'crop_image_height': 32,
        'crop_image_width': 32,
    })
    return cfg


def sample_draws(cfg, n, seed, batch=None):
    """``n`` training draws as upstream's ``train.py`` makes them: a tag ``i`` by
    ``random.randint``, source and target attributes ``j, j_trg`` by ``random.sample``, then a
    batch ``x`` (images), ``y`` (tag-irrelevant labels, 0/1) and the latent ``z`` (float32 numpy;
    upstream draws ``z`` with ``torch.randn`` inside the trainer).  Seeded: the same on both sides.
    """
    rand = random.Random(seed)
    rng = np.random.default_rng(seed)
    batch = batch or cfg['batch_size']
    size = cfg['new_size']
    draws = []
    for _ in range(n):
        i = rand.randint(0, len(cfg['tags']) - 1)
        j, j_trg = rand.sample(list(range(len(cfg['tags'][i]['attributes']))), 2)
        draws.append({
            'x': rng.standard_normal((batch, cfg['input_dim'], size, size)).astype(np.float32),
            'y': rng.integers(0, 2, (batch, cfg['tags'][i]['tag_irrelevant_conditions_dim'])).astype(np.float32),
            'z': rng.standard_normal((batch, cfg['noise_dim'])).astype(np.float32),
            'i': i, 'j': j, 'j_trg': j_trg,
        })
    return draws
