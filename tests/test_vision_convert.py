"""torchvision data code converts with the real mapping table: every import form binds a
``shims.vision`` module, the converted script runs on a PIL image, and a name a leftover is
respelled with (``torchvision.transforms.X``) is always bound in the converted file."""
import ast

import numpy as np
import pytest
from PIL import Image

from porter import convert_source

SCRIPT = '''
import torch
import torchvision
import torchvision.transforms as T
from torchvision import datasets, transforms
from torchvision.transforms import functional as TF
from torchvision.datasets import MNIST, ImageFolder


def pipeline():
    return transforms.Compose([transforms.Resize(20), transforms.CenterCrop(15), transforms.ToTensor(),
                               transforms.Normalize((0.5,), (0.25,))])


def augment():
    return T.Compose([T.RandomCrop(16, padding=2, padding_mode="reflect"), T.RandomHorizontalFlip(),
                      T.ColorJitter(0.1, 0.1, 0.1, 0.05), T.ToTensor()])


def first(img):
    x = pipeline()(img)
    return x.view(-1).mul(2), TF.to_tensor(img).unsqueeze(0), torchvision.transforms.ToTensor()(img)


def sets(root):
    return datasets.MNIST(root, download=False), MNIST, ImageFolder, torchvision.datasets.CIFAR10
'''


def _unbound_names(code: str, name: str) -> bool:
    """True when ``name`` is loaded somewhere but never bound at module level."""
    tree = ast.parse(code)
    loaded = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(tree))
    bound = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            bound.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in stmt.names)
    return loaded and name not in bound


def test_import_forms_convert_and_run():
    res = convert_source(SCRIPT, "train.py")
    assert not res.report.unsupported, [f.api for f in res.report.unsupported]
    assert "torchvision" not in res.code and "jittor.transform" not in res.code
    for line in ("from shims.vision import transforms as T", "from shims.vision import datasets, transforms",
                 "from shims.vision import functional as TF", "from shims.vision.datasets import MNIST, ImageFolder"):
        assert line in res.code
    ns = {}
    exec(compile(res.code, "train.py", "exec"), ns)
    img = Image.fromarray(np.arange(18 * 24 * 3, dtype=np.uint8).reshape(18, 24, 3))
    flat, batched, plain = ns["first"](img)
    assert tuple(flat.shape) == (3 * 15 * 15,) and tuple(batched.shape) == (1, 3, 18, 24)
    assert str(plain.dtype) == "float32" and tuple(ns["augment"]()(img).shape) == (3, 16, 16)
    with pytest.raises(FileNotFoundError, match="Dataset not found: train-images-idx3-ubyte .* missing in "
                                                "/nonexistent-root/MNIST/raw"):
        ns["sets"]("/nonexistent-root")
    import shims.vision.datasets as D
    with pytest.raises(FileNotFoundError, match="no network; place the files"):
        D.MNIST("/nonexistent-root", download=True)


@pytest.mark.parametrize("imports", [
    "from torchvision import transforms",
    "import torchvision.transforms as transforms",
    "import torchvision\nfrom torchvision import transforms",
    "import torch\nfrom torchvision import transforms",
])
def test_respelled_leftover_keeps_its_name_bound(imports):
    """A transform without a shim is respelled ``torchvision.transforms.X`` (the alias now
    names ``shims.vision.transforms``): the converted file must bind ``torchvision``."""
    line = "tf = transforms.Compose([transforms.RandomPerspective(), transforms.ToTensor()])"
    res = convert_source(f"{imports}\n{line}\n", "t.py")
    assert [f.api for f in res.report.unsupported] == ["torchvision.transforms.RandomPerspective"]
    assert "torchvision.transforms.RandomPerspective()" in res.code
    assert not _unbound_names(res.code, "torchvision"), res.code
    assert not _unbound_names(res.code, "torch"), res.code
