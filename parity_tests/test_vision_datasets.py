"""torchvision datasets: torch's torchvision and the converted code (``shims.vision``) read the
same files in torchvision's formats (idx, idx.gz, CIFAR python pickles, an ImageFolder tree of
PNGs, EMNIST's and QMNIST's idx files (QMNIST's int32 label rows), written by
``torch_side/vision_data_files.py``) and give the same samples in the same
order, through the same transforms and a ``DataLoader(batch_size=3, shuffle=False)``.

The Jittor side is ``torch_side/vision_data.py`` converted by jtport, unmodified.  Images go
through the same PIL calls on both sides, then ``/255``, ``-mean``, ``/std`` in float32: equal
to the last bit is expected; the tolerance (1 ulp of values below 10) only allows a different
but correctly rounded evaluation order.  Labels are compared exactly (Jittor's are int32).
"""
import types
from pathlib import Path

import numpy as np
import pytest

import shims  # noqa: F401  (Jittor's settings, before Jittor is imported)
import jittor as jt
from porter import convert_source
from porter.prove.torchside import TorchSide
from parity_tests.torch_side import vision_data_files

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "parity_tests" / "torch_side" / "vision_data.py"
TORCH_SIDE = TorchSide(SCRIPT, "vision_data", (ROOT / "parity_tests" / "torch_side" / "vision_data_files.py",))
NAMES = ["mnist_train", "mnist_test", "mnist_gz", "fashion", "cifar10_train", "cifar10_test", "cifar100", "folder",
         "emnist_letters", "qmnist_test", "qmnist_nist"]


@pytest.fixture(scope="module")
def ref():
    return np.load(TORCH_SIDE.run() / "datasets.npz")


@pytest.fixture(scope="module")
def converted():
    res = convert_source(SCRIPT.read_text(), str(SCRIPT))
    mod = types.ModuleType("vision_data_converted")
    mod.__file__ = str(SCRIPT)
    exec(compile(res.code, str(SCRIPT), "exec"), mod.__dict__)
    return mod, res


@pytest.fixture(scope="module")
def built(converted, tmp_path_factory):
    root = tmp_path_factory.mktemp("vision_data")
    vision_data_files.write_all(str(root), str(root / "gz"))
    return converted[0].loaders(str(root), str(root / "gz")), converted[0].describe


def test_converted_without_hand_edits(converted):
    """Everything converts but ``main``'s torch-only md5 bypass (never run on the Jittor side)."""
    res = converted[1]
    assert sorted({f.api for f in res.report.unsupported}) == ["torchvision.datasets.cifar.check_integrity"]
    assert "shims.vision" in res.code and "import torchvision" not in res.code


@pytest.mark.parametrize("name", NAMES)
def test_same_samples_in_same_order(ref, built, name):
    sets, describe = built
    ds, dl = sets[name]
    for key, value in describe(ds).items():
        np.testing.assert_array_equal(np.array(value), ref[f"{name}#{key}"], err_msg=f"{name}: {key}")
    n = 0
    for i, (x, y) in enumerate(dl):
        assert isinstance(x, jt.Var) and isinstance(y, jt.Var), f"{name}/{i}: the loader must yield Vars"
        want_x, want_y = ref[f"{name}/{i}/x"], ref[f"{name}/{i}/y"]
        assert x.dtype == jt.float32 and tuple(x.shape) == want_x.shape, f"{name}/{i}: {x.dtype} {x.shape}"
        np.testing.assert_allclose(x.numpy(), want_x, rtol=0, atol=1e-6, err_msg=f"{name}/{i}/x")
        np.testing.assert_array_equal(y.numpy(), want_y, err_msg=f"{name}/{i}/y")
        n += 1
    assert n == int(ref[f"{name}#batches"]) and n > 1

