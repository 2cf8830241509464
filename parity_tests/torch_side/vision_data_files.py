"""Small dataset files in torchvision's on-disk formats, shared by both sides of
``parity_tests/test_vision_datasets.py`` (numpy, PIL and the standard library only).

``write_all(root)`` writes, from a fixed seed:

* ``root/MNIST/raw`` and ``root/FashionMNIST/raw``: idx ``*-ubyte`` files (train and t10k);
  ``root_gz/MNIST/raw``: the same bytes gzip-compressed (``*-ubyte.gz``);
* ``root/cifar-10-batches-py``: two ``data_batch_*`` of the five, ``test_batch`` and
  ``batches.meta`` pickled as CIFAR's python version is (dicts of a uint8 ``data`` array of
  rows ``R(1024) G(1024) B(1024)`` and a ``labels`` list); the missing batches are empty;
* ``root/cifar-100-python``: ``train``, ``test`` (``fine_labels``/``coarse_labels``) and ``meta``;
* ``root/folder``: an ImageFolder tree of PNGs (classes out of order, a nested folder, a file
  with an upper-case extension, a non-image file);
* ``root/EMNIST/raw``: the ``letters`` split's train files (labels 1-26);
* ``root/QMNIST/raw``: ``qmnist-test`` and ``xnist`` images with their int32 label rows of 8
  columns (``*-labels-idx2-int``).
"""
import gzip
import os
import pickle

import numpy as np
from PIL import Image

SEED = 1234
MNIST_SIZES = {"train": 7, "t10k": 5}


def write_idx(path, a, code=8):
    """An idx file: magic ``0 0 <type> <ndim>``, big-endian dims, then the data (type 8: uint8
    bytes; 12: big-endian int32)."""
    dtype = {8: np.uint8, 12: ">i4"}[code]
    with open(path, "wb") as f:
        f.write(bytes([0, 0, code, a.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in a.shape))
        f.write(a.astype(dtype).tobytes())


def _mnist(rng, root, gz_root, cls):
    raw, raw_gz = os.path.join(root, cls, "raw"), os.path.join(gz_root, cls, "raw")
    os.makedirs(raw)
    os.makedirs(raw_gz)
    for split, n in MNIST_SIZES.items():
        arrays = {"images-idx3": rng.integers(0, 256, (n, 28, 28)), "labels-idx1": rng.integers(0, 10, n)}
        for kind, a in arrays.items():
            path = os.path.join(raw, f"{split}-{kind}-ubyte")
            write_idx(path, a)
            with open(path, "rb") as src, gzip.open(os.path.join(raw_gz, f"{split}-{kind}-ubyte.gz"), "wb") as dst:
                dst.write(src.read())


def _pickle(path, obj):
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=2)  # CIFAR's files are protocol-2 pickles


def _cifar(rng, root):
    c10 = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(c10)
    for i, n in enumerate([4, 3, 0, 0, 0], 1):
        _pickle(os.path.join(c10, f"data_batch_{i}"),
                {"batch_label": f"training batch {i} of 5", "data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                 "labels": [int(v) for v in rng.integers(0, 10, n)], "filenames": [f"f{i}_{k}.png" for k in range(n)]})
    _pickle(os.path.join(c10, "test_batch"), {"data": rng.integers(0, 256, (5, 3072), dtype=np.uint8),
                                              "labels": [int(v) for v in rng.integers(0, 10, 5)]})
    _pickle(os.path.join(c10, "batches.meta"), {"label_names": [f"class{k}" for k in range(10)],
                                                "num_cases_per_batch": 10000, "num_vis": 3072})
    c100 = os.path.join(root, "cifar-100-python")
    os.makedirs(c100)
    for split, n in (("train", 6), ("test", 4)):
        _pickle(os.path.join(c100, split), {"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                                            "fine_labels": [int(v) for v in rng.integers(0, 100, n)],
                                            "coarse_labels": [int(v) for v in rng.integers(0, 20, n)]})
    _pickle(os.path.join(c100, "meta"), {"fine_label_names": [f"fine{k}" for k in range(100)],
                                         "coarse_label_names": [f"coarse{k}" for k in range(20)]})


FOLDER_FILES = [("zebra", "b.png"), ("ant", "z.png"), ("ant", "a.png"), ("zebra", "sub/a.png"),
                ("cat", "c.PNG"), ("cat", "notes.txt"), ("cat", "a.png")]


def _folder(rng, root):
    for cls, name in FOLDER_FILES:
        path = os.path.join(root, "folder", cls, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if name.endswith(".txt"):
            with open(path, "w") as f:
                f.write("not an image\n")
        else:
            size = tuple(int(v) for v in rng.integers(20, 40, 2))
            Image.fromarray(rng.integers(0, 256, (*size, 3), dtype=np.uint8)).save(path, format="PNG")


def write_all(root, gz_root):
    """Write every dataset under ``root`` (and the gzip MNIST copy under ``gz_root``)."""
    rng = np.random.default_rng(SEED)
    for cls in ("MNIST", "FashionMNIST"):
        _mnist(rng, root, gz_root, cls)
    _cifar(rng, root)
    _folder(rng, root)
    _emnist_qmnist(rng, root)


def _emnist_qmnist(rng, root):
    raw = os.path.join(root, "EMNIST", "raw")
    os.makedirs(raw)
    write_idx(os.path.join(raw, "emnist-letters-train-images-idx3-ubyte"), rng.integers(0, 256, (7, 28, 28)))
    write_idx(os.path.join(raw, "emnist-letters-train-labels-idx1-ubyte"), rng.integers(1, 27, 7))
    raw = os.path.join(root, "QMNIST", "raw")
    os.makedirs(raw)
    for stem, n in (("qmnist-test", 6), ("xnist", 5)):
        write_idx(os.path.join(raw, f"{stem}-images-idx3-ubyte"), rng.integers(0, 256, (n, 28, 28)))
        rows = np.concatenate([rng.integers(0, 10, (n, 1)), rng.integers(0, 4000, (n, 7))], axis=1)
        write_idx(os.path.join(raw, f"{stem}-labels-idx2-int"), rows, code=12)
