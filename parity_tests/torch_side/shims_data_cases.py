"""Datasets and samplers shared by the torch and Jittor sides of the DataLoader parity test.

Plain Python + numpy, the way torch users write them (no base class needed).  The torch side
mixes in torch's ``IterableDataset``/``Sampler``; the Jittor side uses ``shims.data``'s.
"""
import numpy as np

ORDER = [7, 2, 9, 0, 4, 10, 1, 8, 3, 6, 5]
MAX_BATCHES = 9


class Items:
    """Map-style dataset: sample i = (float32 image, int label, dict with float/bool/array, str)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = (np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * i)
        return img, i % 3, {"w": 0.5 * i, "flag": bool(i % 2), "vec": np.full(2, i, np.int64)}, f"s{i}"


def collate_keys(batch):
    """A user collate_fn: stack images, keep the labels as a list of ints."""
    return {"img": np.stack([b[0] for b in batch]) * 2, "labels": [b[1] for b in batch]}


class Stream:
    """An iterable dataset; with ``split`` each worker takes its share (torch's documented way)."""

    def __init__(self, n, split=False):
        self.n, self.split = n, split

    def __iter__(self):
        start, step = 0, 1
        if self.split:
            info = _worker_info()
            if info is not None:
                start, step = info.id, info.num_workers
        for i in range(start, self.n, step):
            yield np.array([i, i * i], np.int64)

    def __len__(self):
        return self.n


def _worker_info():
    try:
        from torch.utils.data import get_worker_info
    except ImportError:
        from shims.data import get_worker_info
    return get_worker_info()


class InfiniteSampler:
    """MCCNet / StyleGAN2-ADA pattern: an endless deterministic index stream, len = 2**31."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        i = 0
        while True:
            yield ORDER[i % self.n]
            i += 1

    def __len__(self):
        return 2 ** 31
