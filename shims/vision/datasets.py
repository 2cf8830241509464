"""``torchvision.datasets`` without torch, reading torchvision's on-disk layouts.

* ``MNIST``/``FashionMNIST``/``KMNIST``: ``root/<Class>/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte``
  (or the same with ``.gz``, read directly: torchvision's ``download`` would extract them);
* ``EMNIST``: ``root/EMNIST/raw/emnist-<split>-{train,test}-{images-idx3,labels-idx1}-ubyte``, the
  six splits and their class lists; images as stored (torchvision does not transpose them);
* ``QMNIST``: ``root/QMNIST/raw/{qmnist-train,qmnist-test,xnist}-{images-idx3-ubyte,labels-idx2-int}``,
  ``what`` = train/test/test10k/test50k/nist, targets the 8-column int rows (a sample's target:
  with ``compat=True`` the class, column 0, as an int; else the row as a Var);
* ``CIFAR10``/``CIFAR100``: ``root/cifar-10-batches-py`` / ``root/cifar-100-python``, read with a
  restricted unpickler (numpy arrays only; torchvision unpickles anything).  File checksums are
  not checked (torchvision refuses files whose md5 differs from the official ones);
* ``ImageFolder``/``DatasetFolder``: ``root/<class>/**/<file>``, classes sorted.

Samples are torchvision's: ``(PIL image, int)`` unless a transform says otherwise; ``data`` and
``targets`` are numpy arrays (uint8 images, int64 labels) where torchvision has tensors.  This
machine has no network: ``download=True`` only checks the files are there.
"""
from __future__ import annotations

import gzip
import os
import string

import jittor as jt
import numpy as np
from PIL import Image

from shims.data import Dataset

from ._safe_pickle import load_numpy_pickle

__all__ = ["VisionDataset", "StandardTransform", "MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST", "CIFAR10",
           "CIFAR100",
           "DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader", "pil_loader", "find_classes",
           "make_dataset", "has_file_allowed_extension", "is_image_file"]


class StandardTransform:
    """``transform`` on the sample and ``target_transform`` on the target, as one callable."""

    def __init__(self, transform=None, target_transform=None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, sample, target):
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target


class VisionDataset(Dataset):
    """torchvision's base class: ``root``, ``transform``, ``target_transform`` and ``transforms``
    (a :class:`StandardTransform` of the two when they are given)."""

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if transforms is not None and (transform is not None or target_transform is not None):
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.root = os.path.expanduser(root) if isinstance(root, (str, os.PathLike)) else root
        self.transform, self.target_transform = transform, target_transform
        if transforms is None and (transform is not None or target_transform is not None):
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def _apply(self, sample, target):
        return (sample, target) if self.transforms is None else self.transforms(sample, target)

    def extra_repr(self) -> str:
        """Extra lines for ``repr`` (subclasses override)."""
        return ""

    def __repr__(self) -> str:
        body = [f"Number of datapoints: {len(self)}"] + ([f"Root location: {self.root}"] if self.root else [])
        body += self.extra_repr().splitlines()
        return "\n".join([f"Dataset {type(self).__name__}", *(" " * self._repr_indent + b for b in body)])


def _missing(what: str, where: str, download: bool) -> FileNotFoundError:
    how = (" download=True cannot fetch it: this machine has no network; place the files there "
           "yourself (torchvision's layout)") if download else " You can place the files there yourself"
    return FileNotFoundError(f"Dataset not found: {what} missing in {where}.{how}.")


# -- MNIST family ---------------------------------------------------------------------------

_IDX_TYPES = {8: np.uint8, 9: np.int8, 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def read_idx(path: str) -> np.ndarray:
    """An idx (``*-ubyte``) file as an array, gzip-compressed or not; errors name the file."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big") if len(data) >= 4 else -1
    nd, ty = magic % 256, magic // 256
    if magic < 0 or data[0:2] != b"\0\0" or ty not in _IDX_TYPES or len(data) < 4 * (nd + 1):
        raise ValueError(f"{path}: not an idx file (magic number {magic})")
    shape = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(nd)]
    dtype = np.dtype(_IDX_TYPES[ty])
    count = int(np.prod(shape)) if shape else 1
    if len(data) - 4 * (nd + 1) != count * dtype.itemsize:
        raise ValueError(f"{path}: idx header says shape {shape} but the file holds "
                         f"{len(data) - 4 * (nd + 1)} bytes of data")
    return np.frombuffer(data, dtype, count, 4 * (nd + 1)).astype(dtype.newbyteorder("=")).reshape(shape)


class MNIST(VisionDataset):
    """torchvision's MNIST from ``root/MNIST/raw``: samples ``(PIL 'L' image, int)``."""

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        prefix = "train" if train else "t10k"
        self.data = self._read(f"{prefix}-images-idx3-ubyte", 3, download)
        self.targets = self._read(f"{prefix}-labels-idx1-ubyte", 1, download).astype(np.int64)
        if len(self.data) != len(self.targets):
            raise ValueError(f"{self.raw_folder}: {len(self.data)} images but {len(self.targets)} labels")

    @property
    def raw_folder(self) -> str:
        """``root/<ClassName>/raw``, as torchvision."""
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def class_to_idx(self) -> dict:
        """Class name -> label."""
        return {c: i for i, c in enumerate(self.classes)}

    def _read_file(self, name: str, download: bool) -> np.ndarray:
        """The idx file ``name`` (or ``name.gz``) of :attr:`raw_folder`."""
        path = os.path.join(self.raw_folder, name)
        if not os.path.isfile(path):
            path += ".gz"
        if not os.path.isfile(path):
            raise _missing(f"{name} (or {name}.gz)", self.raw_folder, download)
        return read_idx(path)

    def _read(self, name: str, ndim: int, download: bool) -> np.ndarray:
        arr = self._read_file(name, download)
        path = os.path.join(self.raw_folder, name)
        if arr.dtype != np.uint8 or arr.ndim != ndim:
            raise ValueError(f"{path}: expected a {ndim}-d uint8 idx file, got {arr.ndim}-d {arr.dtype}")
        return arr

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index):
        img = Image.fromarray(self.data[index])  # uint8 (H, W): mode "L"
        return self._apply(img, int(self.targets[index]))


class FashionMNIST(MNIST):
    """torchvision's FashionMNIST (``root/FashionMNIST/raw``)."""

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    """torchvision's KMNIST (``root/KMNIST/raw``)."""

    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


class EMNIST(MNIST):
    """torchvision's EMNIST (``root/EMNIST/raw``): ``split`` one of :attr:`splits`, each with its
    own files and classes (``letters`` labels 1-26, class 0 ``'N/A'``)."""

    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = set("cijklmopsuvwxyz")
    _all_classes = set(string.digits + string.ascii_letters)
    classes_split_dict = {
        "byclass": sorted(_all_classes),
        "bymerge": sorted(_all_classes - _merged_classes),
        "balanced": sorted(_all_classes - _merged_classes),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root, split, train=True, transform=None, target_transform=None, download=False):
        if split not in self.splits:
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are "
                             f"{{{', '.join(repr(s) for s in self.splits)}}}.")
        self.split = split
        VisionDataset.__init__(self, root, transform=transform, target_transform=target_transform)
        self.train = train
        prefix = f"emnist-{split}-{'train' if train else 'test'}"
        self.data = self._read(f"{prefix}-images-idx3-ubyte", 3, download)
        self.targets = self._read(f"{prefix}-labels-idx1-ubyte", 1, download).astype(np.int64)
        if len(self.data) != len(self.targets):
            raise ValueError(f"{self.raw_folder}: {len(self.data)} images but {len(self.targets)} labels")
        self.classes = self.classes_split_dict[split]

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}"


class QMNIST(MNIST):
    """torchvision's QMNIST (``root/QMNIST/raw``): ``what`` picks the file pair and slice
    (``test10k``/``test50k``: the first 10,000 / the rest of the test set); targets are rows of
    8 int64 (class, NIST writer, ...), reduced to the class by ``compat=True``."""

    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test", "nist": "nist"}
    _files = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}

    def __init__(self, root, what=None, compat=True, train=True, transform=None, target_transform=None,
                 download=False):
        what = ("train" if train else "test") if what is None else what
        if what not in self.subsets:
            raise ValueError(f"Unknown value '{what}' for argument what. Valid values are "
                             f"{{{', '.join(repr(s) for s in self.subsets)}}}.")
        self.what, self.compat, self.train = what, compat, train
        VisionDataset.__init__(self, root, transform=transform, target_transform=target_transform)
        stem = self._files[self.subsets[what]]
        data = self._read(f"{stem}-images-idx3-ubyte", 3, download)
        targets = self._read_file(f"{stem}-labels-idx2-int", download)
        if targets.ndim != 2:
            raise ValueError(f"targets should have 2 dimensions instead of {targets.ndim}")
        targets = targets.astype(np.int64)
        if what == "test10k":
            data, targets = data[:10000], targets[:10000]
        elif what == "test50k":
            data, targets = data[10000:], targets[10000:]
        self.data, self.targets = data, targets

    def __getitem__(self, index):
        img = Image.fromarray(self.data[index])
        # compat=False: torchvision's target is the row as a tensor, so here a Var
        target = int(self.targets[index][0]) if self.compat else jt.array(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self) -> str:
        return f"Split: {self.what}"


# -- CIFAR ----------------------------------------------------------------------------------

class CIFAR10(VisionDataset):
    """torchvision's CIFAR10 from ``root/cifar-10-batches-py``: samples ``(PIL RGB image, int)``."""

    base_folder = "cifar-10-batches-py"
    train_list = [f"data_batch_{i}" for i in range(1, 6)]
    test_list = ["test_batch"]
    meta = {"filename": "batches.meta", "key": "label_names"}
    label_key = "labels"

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        folder = os.path.join(self.root, self.base_folder)
        names = [*self.train_list, *self.test_list, self.meta["filename"]]
        absent = [n for n in names if not os.path.isfile(os.path.join(folder, n))]
        if absent:
            raise _missing(", ".join(absent), folder, download)
        data, self.targets = [], []
        for name in self.train_list if train else self.test_list:
            path = os.path.join(folder, name)
            entry = load_numpy_pickle(path)
            if not isinstance(entry, dict) or "data" not in entry or self.label_key not in entry:
                raise ValueError(f"{path}: expected a dict with 'data' and {self.label_key!r}")
            data.append(np.asarray(entry["data"], np.uint8))
            self.targets.extend(int(t) for t in entry[self.label_key])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        meta = load_numpy_pickle(os.path.join(folder, self.meta["filename"]))
        self.classes = list(meta[self.meta["key"]])
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index):
        return self._apply(Image.fromarray(self.data[index]), self.targets[index])


class CIFAR100(CIFAR10):
    """torchvision's CIFAR100 (``root/cifar-100-python``, fine labels)."""

    base_folder = "cifar-100-python"
    train_list = ["train"]
    test_list = ["test"]
    meta = {"filename": "meta", "key": "fine_label_names"}
    label_key = "fine_labels"


# -- folders --------------------------------------------------------------------------------

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions) -> bool:
    """Case-insensitive suffix test."""
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def is_image_file(filename: str) -> bool:
    """A name with one of :data:`IMG_EXTENSIONS`."""
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory):
    """(sorted class folder names, name -> index)."""
    classes = sorted(e.name for e in os.scandir(directory) if e.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {c: i for i, c in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None, allow_empty=False):
    """``[(path, class index)]`` in torchvision's order: classes sorted, then ``os.walk`` sorted."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    valid = is_valid_file or (lambda p: has_file_allowed_extension(p, extensions))
    instances, found = [], set()
    for cls in sorted(class_to_idx):
        target_dir = os.path.join(directory, cls)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if valid(path):
                    instances.append((path, class_to_idx[cls]))
                    found.add(cls)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            msg += f"Supported extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}"
        raise FileNotFoundError(msg)
    return instances


def pil_loader(path) -> Image.Image:
    """The image at ``path`` as RGB."""
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


default_loader = pil_loader


class DatasetFolder(VisionDataset):
    """torchvision's ``DatasetFolder``: ``root/<class>/...`` files through ``loader``."""

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.classes, self.class_to_idx = self.find_classes(self.root)
        self.samples = self.make_dataset(self.root, self.class_to_idx, extensions, is_valid_file, allow_empty)
        self.loader, self.extensions = loader, extensions
        self.targets = [s[1] for s in self.samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty=False):
        """See :func:`make_dataset` (overridable, as torchvision)."""
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory):
        """See :func:`find_classes` (overridable, as torchvision)."""
        return find_classes(directory)

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index):
        path, target = self.samples[index]
        return self._apply(self.loader(path), target)


class ImageFolder(DatasetFolder):
    """torchvision's ``ImageFolder``: RGB PIL images of :data:`IMG_EXTENSIONS` files."""

    def __init__(self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
