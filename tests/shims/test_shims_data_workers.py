"""``shims.data`` beyond batch parity: worker errors, seeding, persistent workers, samplers and
torch's argument checks."""
import os

import numpy as np
import pytest

import shims
from shims.data import (DataLoader, Dataset, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                        WorkerError, get_worker_info)


class Squares(Dataset):
    def __init__(self, n=10, bad=None):
        self.n, self.bad = n, bad

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise KeyError(f"sample {i} is corrupt")
        info = get_worker_info()
        return np.float32(i * i), os.getpid(), -1 if info is None else info.id


def test_worker_exception_surfaces_with_traceback():
    dl = DataLoader(Squares(bad=5), batch_size=2, num_workers=2)
    with pytest.raises(WorkerError) as err:
        list(dl)
    msg = str(err.value)
    assert "Caught KeyError in DataLoader worker process" in msg
    assert "sample 5 is corrupt" in msg and "__getitem__" in msg and "Traceback" in msg


def test_worker_init_fn_failure_surfaces():
    def init(worker_id):
        raise OSError(f"no data dir for worker {worker_id}")

    with pytest.raises(WorkerError, match="no data dir for worker"):
        list(DataLoader(Squares(), batch_size=2, num_workers=1, worker_init_fn=init))


def test_workers_are_processes_and_persistent_workers_are_reused():
    dl = DataLoader(Squares(), batch_size=5, num_workers=2, persistent_workers=True)
    epochs = [[b for b in dl] for _ in range(3)]
    pids = [{int(p) for b in ep for p in b[1].numpy()} for ep in epochs]
    assert os.getpid() not in pids[0] and len(pids[0]) == 2
    assert pids[0] == pids[1] == pids[2]
    assert [list(b[2].numpy()) for b in epochs[0]] == [[0] * 5, [1] * 5]  # round-robin, in order
    for ep in epochs:
        np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in ep]), np.arange(10) ** 2)
    fresh = DataLoader(Squares(), batch_size=5, num_workers=2)
    assert {int(p) for b in fresh for p in b[1].numpy()} != {int(p) for b in fresh for p in b[1].numpy()}


def test_abandoning_an_infinite_loader_does_not_hang():
    class Forever(shims.data.Sampler):
        def __iter__(self):
            while True:
                yield 1

        def __len__(self):
            return 2 ** 31

    dl = DataLoader(Squares(), batch_size=2, sampler=Forever(), num_workers=2)
    for i, _ in enumerate(dl):
        if i == 3:
            break


def test_random_samplers_are_seedable_permutations():
    ds = list(range(20))
    a = list(RandomSampler(ds, generator=7))
    b = list(RandomSampler(ds, generator=7))
    assert a == b and sorted(a) == ds and a != ds
    s = RandomSampler(ds, generator=np.random.default_rng(1))
    assert list(s) != list(s)  # the generator advances between epochs, like torch's
    assert len(list(RandomSampler(ds, num_samples=45, generator=0))) == 45
    sub = list(SubsetRandomSampler([3, 5, 7], generator=0))
    assert sorted(sub) == [3, 5, 7]
    w = list(WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=0))
    counts = np.bincount(w, minlength=3)
    assert counts[0] == 0 and abs(counts[2] / counts[1] - 3) < 0.4
    shuffled = [int(x) for b in DataLoader(ds, batch_size=5, shuffle=True, generator=3) for x in b.numpy()]
    assert sorted(shuffled) == ds


@pytest.mark.parametrize("kw,match", [
    (dict(shuffle=True, sampler=[0, 1]), "mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(num_workers=-1), "non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor"),
    (dict(persistent_workers=True), "persistent_workers"),
    (dict(batch_size=0), "positive integer"),
    (dict(batch_size=None, drop_last=True), "batch_size=None"),
])
def test_argument_errors_like_torch(kw, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(list(range(4)), **kw)
