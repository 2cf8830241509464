"""Torch side of ``parity_tests/test_vision_datasets.py``: torchvision datasets read from the
files ``vision_data_files.write_all`` writes, through transforms and a ``DataLoader`` with
``shuffle=False`` and ``batch_size=3``; every batch and each dataset's metadata are saved.

``loaders`` is ordinary torch user code: the Jittor side converts this file with ``jtport``'s
converter, unmodified, and runs the converted ``loaders`` on the same files.  Only ``main``
is torch-specific: torchvision checks CIFAR files against the official md5 sums, which the
test's small synthetic files cannot match, so ``main`` turns that check into an existence check.
"""
import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from parity_tests.torch_side import vision_data_files  # noqa: E402


def loaders(root, mnist_gz_root):
    """name -> (dataset, DataLoader); ``mnist_gz_root`` holds ``.gz`` idx files (the Jittor side
    reads them directly; torchvision only reads extracted files, so the torch side passes ``root``)."""
    mnist_tf = transforms.Compose([transforms.Resize(20), transforms.CenterCrop(17), transforms.ToTensor(),
                                   transforms.Normalize((0.1307,), (0.3081,))])
    cifar_tf = T.Compose([T.Pad(2, padding_mode="reflect"), T.CenterCrop(31), T.ToTensor(),
                          T.Normalize([0.49, 0.48, 0.45], [0.25, 0.24, 0.26])])
    folder_tf = T.Compose([T.Resize(24), T.CenterCrop(21), T.Grayscale(3), T.ToTensor()])
    sets = {
        "mnist_train": datasets.MNIST(root, train=True, transform=mnist_tf),
        "mnist_test": datasets.MNIST(root, train=False, transform=mnist_tf, target_transform=lambda t: t * 2),
        "mnist_gz": datasets.MNIST(mnist_gz_root, train=True, transform=transforms.ToTensor()),
        "fashion": torchvision.datasets.FashionMNIST(root, download=False, transform=T.ToTensor()),
        "cifar10_train": datasets.CIFAR10(root, train=True, transform=cifar_tf),
        "cifar10_test": torchvision.datasets.CIFAR10(root, train=False, transform=T.ToTensor()),
        "cifar100": datasets.CIFAR100(root, transform=cifar_tf),
        "folder": datasets.ImageFolder(os.path.join(root, "folder"), transform=folder_tf),
        "emnist_letters": datasets.EMNIST(root, split="letters", transform=mnist_tf),
        "qmnist_test": datasets.QMNIST(root, train=False, transform=T.ToTensor()),
        "qmnist_nist": datasets.QMNIST(root, what="nist", compat=False, transform=T.ToTensor(),
                                       target_transform=lambda row: int(row[1])),
    }
    return {name: (ds, DataLoader(ds, batch_size=3, shuffle=False)) for name, ds in sets.items()}


def describe(ds):
    """What a user reads off a dataset besides its samples."""
    classes = "|".join(ds.classes)
    targets = np.asarray(ds.targets).reshape(len(ds), -1)  # QMNIST's are rows: class, writer, ...
    return {"len": len(ds), "classes": classes, "targets": [[int(v) for v in t] for t in targets],
            "class_to_idx": [ds.class_to_idx[c] for c in ds.classes]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out_dir = ap.parse_args().out
    os.makedirs(out_dir, exist_ok=True)
    torchvision.datasets.CIFAR10._check_integrity = lambda self: True
    torchvision.datasets.cifar.check_integrity = lambda fpath, md5=None: os.path.isfile(fpath)
    flat = {}
    with tempfile.TemporaryDirectory() as root:
        vision_data_files.write_all(root, os.path.join(root, "gz"))
        for name, (ds, dl) in loaders(root, root).items():
            for k, v in describe(ds).items():
                flat[f"{name}#{k}"] = np.array(v)
            n = 0
            for i, (x, y) in enumerate(dl):
                flat[f"{name}/{i}/x"] = x.numpy()
                flat[f"{name}/{i}/y"] = y.numpy()
                n += 1
            flat[f"{name}#batches"] = np.array(n)
    np.savez(os.path.join(out_dir, "datasets.npz"), **flat)


if __name__ == "__main__":
    main()
