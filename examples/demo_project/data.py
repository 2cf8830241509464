"""A synthetic dataset: 16x16 images of horizontal (label 0) or vertical (label 1) stripes."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Stripes(Dataset):
    """Noisy stripe images; the stripe direction is the label."""

    def __init__(self, n=256, size=16, seed=0):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 2, size=n)
        self.phase = rng.integers(0, 4, size=n)
        self.noise = rng.normal(0.0, 0.3, size=(n, 1, size, size)).astype(np.float32)
        self.size = size

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        stripes = (np.arange(self.size) + self.phase[i]) % 4 < 2
        img = np.tile(stripes.astype(np.float32), (self.size, 1))
        if self.labels[i] == 0:
            img = img.T
        img = img[None] + self.noise[i]
        return torch.from_numpy(img), int(self.labels[i])


def make_loader(batch_size=32, shuffle=True):
    """Batches of (images, labels), dropping the last incomplete batch."""
    return DataLoader(Stripes(), batch_size=batch_size, shuffle=shuffle, num_workers=0, drop_last=True)
