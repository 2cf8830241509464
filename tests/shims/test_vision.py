"""``shims.vision`` beyond the parity cases: a random transform applies exactly what its
``get_params`` draws (the functional it then calls is parity-checked against torchvision in
``parity_tests/api/cases/vision.py``), the CIFAR reader refuses code, malformed files and
missing datasets are reported with their path, and datasets work with ``shims.data.DataLoader``
(worker processes included)."""
import os
import pickle

import numpy as np
import pytest
from PIL import Image

import shims  # noqa: F401
import jittor as jt
from shims.checkpoint.errors import CheckpointError, ForbiddenGlobalError
from shims.data import DataLoader
from shims.vision import datasets as D
from shims.vision import functional as F
from shims.vision import transforms as T
from shims import random_torch

_seed = random_torch.default_generator.manual_seed  # the torch stream the transforms draw from

IMG = Image.fromarray(np.random.default_rng(0).integers(0, 256, (23, 31, 3), dtype=np.uint8))


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("seed", range(5))
def test_random_transforms_apply_their_params(seed):
    _seed(seed)
    out = T.RandomCrop(17, padding=3, padding_mode="symmetric")(IMG)
    _seed(seed)
    padded = F.pad(IMG, 3, padding_mode="symmetric")
    assert same(out, F.crop(padded, *T.RandomCrop.get_params(padded, (17, 17))))

    _seed(seed)
    rrc = T.RandomResizedCrop(12, scale=(0.2, 0.9))
    out = rrc(IMG)
    _seed(seed)
    i, j, h, w = T.RandomResizedCrop.get_params(IMG, (0.2, 0.9), (3 / 4, 4 / 3))
    assert 0 <= i <= 23 - h and 0 <= j <= 31 - w and 0.2 * 23 * 31 * 0.8 <= h * w <= 0.9 * 23 * 31 * 1.2
    assert same(out, F.resized_crop(IMG, i, j, h, w, [12, 12]))

    _seed(seed)
    out = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(IMG)
    _seed(seed)
    order, b, c, s, hue = T.ColorJitter.get_params((0.6, 1.4), (0.6, 1.4), (0.6, 1.4), (-0.1, 0.1))
    want = IMG
    for k in order:
        want = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue][k](want, [b, c, s, hue][k])
    assert sorted(order) == [0, 1, 2, 3] and same(out, want)

    _seed(seed)
    out = T.RandomRotation(25)(IMG)
    _seed(seed)
    angle = T.RandomRotation.get_params([-25.0, 25.0])
    assert -25 <= angle <= 25 and same(out, F.rotate(IMG, angle, fill=0))


@pytest.mark.parametrize("seed", range(3))
def test_affine_and_erasing_apply_their_params(seed):
    _seed(seed)
    out = T.RandomAffine(20, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(-5, 5, -3, 3), fill=4)(IMG)
    _seed(seed)
    params = T.RandomAffine.get_params([-20, 20], (0.2, 0.1), (0.8, 1.2), [-5, 5, -3, 3], [31, 23])
    assert abs(params[1][0]) <= round(0.2 * 31) and abs(params[1][1]) <= round(0.1 * 23)
    assert same(out, F.affine(IMG, *params, fill=4))
    x = jt.array(np.random.default_rng(seed).standard_normal((3, 23, 31)).astype(np.float32))
    before = x.numpy().copy()
    _seed(seed)
    out = T.RandomErasing(p=1.0, value=(1, 2, 3))(x)
    _seed(seed)
    random_torch.rand(1)  # the p draw
    i, j, h, w, v = T.RandomErasing.get_params(x, (0.02, 0.33), (0.3, 3.3), [1.0, 2.0, 3.0])
    want = before.copy()
    want[:, i:i + h, j:j + w] = v
    assert np.array_equal(out.numpy(), want) and np.array_equal(x.numpy(), before)  # x itself untouched


def test_flip_probabilities_follow_torchs_stream():
    _seed(3)
    flips = [same(T.RandomHorizontalFlip(0.3)(IMG), F.hflip(IMG)) for _ in range(400)]
    _seed(3)
    assert flips == [bool(v < np.float32(0.3)) for v in random_torch.rand(400)] and 80 < sum(flips) < 160


def test_center_crop_trap_and_tensor_image():
    img = Image.new("RGB", (256, 256))
    assert T.CenterCrop(255)(img).size == (255, 255)  # jittor.transform.CenterCrop gives 256
    t = T.ToTensor()(IMG)
    assert isinstance(t, jt.Var) and str(t.dtype) == "float32" and tuple(t.shape) == (3, 23, 31)
    assert tuple(T.CenterCrop(10)(t).shape) == (3, 10, 10)
    assert np.allclose(T.CenterCrop(10)(t).numpy(), T.ToTensor()(T.CenterCrop(10)(IMG)).numpy())


def test_normalize_errors():
    with pytest.raises(TypeError, match="float tensor"):
        T.Normalize([0.5], [0.5])(jt.array(np.zeros((1, 2, 2), np.int32)))
    with pytest.raises(ValueError, match="std evaluated to zero"):
        T.Normalize([0.5], [0.0])(np.zeros((1, 2, 2), np.float32))
    arr = np.ones((1, 2, 2), np.float32)
    assert T.Normalize([0.5], [0.25], inplace=True)(arr) is arr and np.all(arr == 2)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def _write_cifar(root, batch):
    folder = root / "cifar-10-batches-py"
    folder.mkdir()
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        with open(folder / name, "wb") as f:
            pickle.dump(batch, f, protocol=2)
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump({"label_names": ["a", "b"]}, f, protocol=2)
    return folder


def test_cifar_reader_refuses_code(tmp_path):
    _write_cifar(tmp_path, {"data": np.zeros((1, 3072), np.uint8), "labels": [0], "x": _Evil()})
    with pytest.raises(ForbiddenGlobalError, match=r"data_batch_1: refusing to unpickle global '(posix|os)\.system'"):
        D.CIFAR10(str(tmp_path))


def test_cifar_reader_reads_arrays_and_reports_bad_files(tmp_path):
    folder = _write_cifar(tmp_path, {"data": np.arange(2 * 3072).astype(np.uint8).reshape(2, 3072), "labels": [1, 0]})
    ds = D.CIFAR10(str(tmp_path), train=False)
    img, target = ds[0]
    assert isinstance(img, Image.Image) and img.size == (32, 32) and target == 1 and ds.classes == ["a", "b"]
    assert np.array_equal(np.asarray(img)[0, 0], [0, 1024 % 256, 2048 % 256])
    (folder / "test_batch").write_bytes(b"\x80\x02}q\x00(X")  # truncated
    with pytest.raises(CheckpointError, match="test_batch: not a readable dataset pickle"):
        D.CIFAR10(str(tmp_path), train=False)
    os.remove(folder / "data_batch_3")
    with pytest.raises(FileNotFoundError, match="data_batch_3 missing in .*cifar-10-batches-py.*no network"):
        D.CIFAR10(str(tmp_path), download=True)


def test_mnist_errors_name_the_file(tmp_path):
    raw = tmp_path / "KMNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte").write_bytes(bytes([0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2]) + b"\0" * 7)
    (raw / "train-labels-idx1-ubyte").write_bytes(bytes([0, 0, 8, 1, 0, 0, 0, 2, 1, 2]))
    with pytest.raises(ValueError, match="train-images-idx3-ubyte: idx header says shape \\[2, 2, 2\\]"):
        D.KMNIST(str(tmp_path))
    (raw / "train-images-idx3-ubyte").write_bytes(b"GIF89a" + b"\0" * 10)
    with pytest.raises(ValueError, match="train-images-idx3-ubyte: not an idx file"):
        D.KMNIST(str(tmp_path))


def test_image_folder_through_loader_with_workers(tmp_path):
    rng = np.random.default_rng(1)
    for cls in ("b", "a"):
        for k in range(3):
            os.makedirs(tmp_path / cls, exist_ok=True)
            Image.fromarray(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)).save(tmp_path / cls / f"{k}.png")
    ds = D.ImageFolder(str(tmp_path), transform=T.Compose([T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)]))
    assert ds.classes == ["a", "b"] and ds.targets == [0, 0, 0, 1, 1, 1]
    want = np.stack([ds[i][0].numpy() for i in range(len(ds))])
    for workers in (0, 2):
        xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in DataLoader(ds, batch_size=4, num_workers=workers)])
        assert np.array_equal(np.concatenate(xs), want) and np.concatenate(ys).tolist() == ds.targets
