"""Resource-exhaustion checkpoints (issue 20) are refused early, with memory bounded by what the
tensors need: each loads in a child whose address space is limited to what it already maps plus
300 MiB, while the bombs ask for 1 GiB and more."""
import json
from pathlib import Path

import numpy as np

from checkpoint_craft import checkpoint, run_python_child, tensor_pickle, zeros_deflate_bomb

CHILD = Path(__file__).with_name("checkpoint_bomb_child.py")
GIB = 1 << 30


def test_bombs_are_refused_within_a_memory_limit(tmp_path):
    cases = {
        # a 4.7 MB file whose data.pkl inflates to 1 GiB
        "pickle_bomb.pth": (zeros_deflate_bomb("archive/data.pkl", GIB), "numpy"),
        # a 4-element tensor whose storage record inflates to 1 GiB
        "storage_bomb.pth": (zeros_deflate_bomb(
            "archive/data/0", GIB, extra=[("archive/data.pkl", b"\x80\x02" + tensor_pickle(
                (4,), (1,), numel=4) + b".")]), "numpy"),
        # the same record declared honestly as 2**28 elements: only the 4 used ones are read
        "big_storage.pth": (zeros_deflate_bomb(
            "archive/data/0", GIB, extra=[("archive/data.pkl", b"\x80\x02" + tensor_pickle(
                (4,), (1,), numel=GIB // 4) + b".")]), "numpy"),
        # size (20000, 20000), stride (0, 0) over 4 floats: 1.6 GB if materialised
        "expand.pth": (checkpoint(tensor_pickle((20000, 20000), (0, 0), numel=4),
                                  {"0": np.arange(4, dtype="<f4").tobytes()}), "jittor"),
        "expand_view.pth": (checkpoint(tensor_pickle((20000, 20000), (0, 0), numel=4),
                                       {"0": np.arange(4, dtype="<f4").tobytes()}), "numpy"),
    }
    args = []
    for name, (data, to) in cases.items():
        (tmp_path / name).write_bytes(data)
        args.append(f"{tmp_path / name}:{to}")
    proc = run_python_child([str(CHILD), "300", *args])
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("control") == "MemoryError"
    got = {Path(k).name: v for k, v in out.items()}
    assert all(not v.get("unclear") for v in got.values()), got
    assert got["pickle_bomb.pth"]["type"] == "CheckpointLimitError"
    assert "data.pkl inflates to 1073741824 bytes" in got["pickle_bomb.pth"]["msg"]
    assert "declares 4 elements" in got["storage_bomb.pth"]["msg"]
    assert got["big_storage.pth"] == {"ok": True, "shape": [4], "sum": 0.0}
    assert got["expand.pth"]["type"] == "CheckpointLimitError"
    assert "refusing to materialise" in got["expand.pth"]["msg"]
    assert got["expand_view.pth"]["ok"] and got["expand_view.pth"]["shape"] == [20000, 20000]
    for name, v in got.items():
        if not v["ok"]:
            assert v["msg"].startswith(str(tmp_path / name)), v

