"""Torch side of ``parity_tests/test_shims_data.py``: DataLoader batches for fixed sampler orders.

The datasets live in ``torch_side/shims_data_cases.py`` (plain Python + numpy, shared with the
Jittor side).  Each case's batches are flattened to ``<case>/<batch>/<path>`` arrays.
"""
import argparse
import os

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, IterableDataset, Sampler

from parity_tests.torch_side import shims_data_cases as cases


class Stream(cases.Stream, IterableDataset):
    pass


class Infinite(cases.InfiniteSampler, Sampler):
    pass


def flat(obj, prefix, out):
    if torch.is_tensor(obj):
        out[prefix] = obj.numpy()
        out[prefix + "#dtype"] = np.array(str(obj.dtype).replace("torch.", ""))
    elif isinstance(obj, dict):
        for k in sorted(obj):
            flat(obj[k], f"{prefix}/{k}", out)
    elif isinstance(obj, (list, tuple)):
        out[prefix + "#type"] = np.array(type(obj).__name__)
        for i, v in enumerate(obj):
            flat(v, f"{prefix}/{i}", out)
    else:
        out[prefix] = np.array(obj)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out_dir = ap.parse_args().out
    os.makedirs(out_dir, exist_ok=True)
    ds = cases.Items(11)
    loaders = {
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
    flat_all = {}
    for name, dl in loaders.items():
        batches = []
        for i, batch in enumerate(dl):
            if i == cases.MAX_BATCHES:
                break
            batches.append(batch)
        flat_all[name + "#n"] = np.array(len(batches))
        for i, b in enumerate(batches):
            flat(b, f"{name}/{i}", flat_all)
    np.savez(os.path.join(out_dir, "batches.npz"), **flat_all)


if __name__ == "__main__":
    main()
