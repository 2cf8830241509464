"""Parity of ``shims.data.DataLoader`` with torch's: the same batches, structure and values for
the same sampler order and ``collate_fn`` (map-style, iterable, workers, infinite sampler).

Values are compared exactly.  Dtypes are compared by kind: Jittor narrows int64 → int32 and
float64 → float32 (``auto_convert_64_to_32``, jittor_gaps X2), torch keeps 64 bits.
"""
from pathlib import Path

import numpy as np
import pytest

import shims  # noqa: F401  (Jittor's settings, before Jittor is imported)
import jittor as jt
from shims.data import BatchSampler, DataLoader, IterableDataset, Sampler
from parity_tests.torch_side import shims_data_cases as cases
from porter.prove.torchside import TorchSide

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]


class Stream(cases.Stream, IterableDataset):
    pass


class Infinite(cases.InfiniteSampler, Sampler):
    pass


def _loaders():
    ds = cases.Items(11)
    return {
        "seq_b3": DataLoader(ds, batch_size=3),
        "seq_b4_drop": DataLoader(ds, batch_size=4, drop_last=True),
        "order_b3_w2": DataLoader(ds, batch_size=3, sampler=cases.ORDER, num_workers=2),
        "batch_sampler": DataLoader(ds, batch_sampler=BatchSampler(cases.ORDER, 4, False)),
        "no_batch": DataLoader(ds, batch_size=None, sampler=cases.ORDER[:4]),
        "collate_fn": DataLoader(ds, batch_size=5, collate_fn=cases.collate_keys),
        "stream_b4": DataLoader(Stream(10), batch_size=4),
        "stream_b4_w2": DataLoader(Stream(10), batch_size=4, num_workers=2),
        "stream_split_w2": DataLoader(Stream(10, split=True), batch_size=3, num_workers=2),
        "infinite": DataLoader(ds, batch_size=4, sampler=Infinite(11), num_workers=2),
    }


_KIND = {"b": "bool", "i": "int", "u": "int", "f": "float"}


def _flat(obj, prefix, out):
    if isinstance(obj, jt.Var):
        out[prefix] = obj.numpy()
    elif isinstance(obj, (np.ndarray, np.generic)):
        raise AssertionError(f"{prefix}: the loader yielded numpy, not a jt.Var")
    elif isinstance(obj, dict):
        for k in sorted(obj):
            _flat(obj[k], f"{prefix}/{k}", out)
    elif isinstance(obj, (list, tuple)):
        out[prefix + "#type"] = type(obj).__name__
        for i, v in enumerate(obj):
            _flat(v, f"{prefix}/{i}", out)
    else:
        out[prefix] = np.array(obj)


TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "shims_data.py", "shims_data",
                       (ROOT / "parity_tests" / "torch_side" / "shims_data_cases.py",))


@pytest.fixture(scope="module")
def ref():
    return np.load(TORCH_SIDE.run() / "batches.npz")


@pytest.mark.parametrize("name", sorted(_loaders()))
def test_same_batches_as_torch(ref, name):
    dl = _loaders()[name]
    got = {}
    n = 0
    for i, batch in enumerate(dl):
        if i == cases.MAX_BATCHES:
            break
        _flat(batch, f"{name}/{i}", got)
        n += 1
    assert n == int(ref[name + "#n"]), f"{name}: {n} batches, torch {int(ref[name + '#n'])}"
    want_keys = {k for k in ref.files if k.startswith(name + "/") and not k.endswith("#dtype")}
    assert set(got) == want_keys
    for k in sorted(want_keys):
        if k.endswith("#type"):
            assert got[k] == str(ref[k]), k
            continue
        want = ref[k]
        np.testing.assert_array_equal(got[k], want, err_msg=k)
        if k + "#dtype" in ref.files:
            torch_kind = str(ref[k + "#dtype"]).rstrip("0123456789")
            assert _KIND[got[k].dtype.kind] == torch_kind, f"{k}: {got[k].dtype} vs torch {ref[k + '#dtype']}"




def test_len_matches_torch_rules():
    ds = cases.Items(11)
    assert len(DataLoader(ds, batch_size=3)) == 4
    assert len(DataLoader(ds, batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(ds, batch_size=4, sampler=Infinite(11))) == 2 ** 31 // 4
    assert len(DataLoader(Stream(10), batch_size=4)) == 3
