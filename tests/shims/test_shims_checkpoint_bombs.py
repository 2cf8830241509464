"""Resource-exhaustion checkpoints (issue 20) are refused early, with memory bounded by what the
tensors need: each loads in a child whose address space is limited to what it already maps plus
300 MiB (700 MiB where the file legitimately materialises 256 MiB), while the bombs ask for
1 GiB and more."""
import json
from pathlib import Path

import numpy as np

from checkpoint_craft import (checkpoint, raw_zip, run_python_child, stored, tensor_pickle, text,
                              zeros_bzip2, zeros_deflate_bomb)

CHILD = Path(__file__).with_name("checkpoint_bomb_child.py")
GIB = 1 << 30


def _run_child(tmp_path, budget_mib: int, cases):
    """Load each case (name: (bytes, to)) in one child limited to ``budget_mib`` MiB more than it
    maps; the results by file name, after checking the limit was live."""
    args = []
    for name, (data, to) in cases.items():
        (tmp_path / name).write_bytes(data)
        args.append(f"{tmp_path / name}:{to}")
    proc = run_python_child([str(CHILD), str(budget_mib), *args])
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("control") == "MemoryError"
    got = {Path(k).name: v for k, v in out.items()}
    assert all(not v.get("unclear") for v in got.values()), got
    for name, v in got.items():
        if not v["ok"]:
            assert v["msg"].startswith(f"{tmp_path / name}: ") and v["msg"].count(str(tmp_path)) == 1, v
    return got


def test_bzip2_members_are_refused_from_their_header(tmp_path):
    """Python's zipfile inflates a bzip2 member whole, whatever read(n) asks for (a 915-byte
    file peaked at 2.1 GB): bzip2 (and LZMA) members are refused before anything is
    decompressed, the pickle's and a storage's, however small they declare themselves."""
    bomb = zeros_bzip2(211)  # 1.0 GiB of zeros in 6.5 KB
    tensor = b"\x80\x02" + tensor_pickle((4,), (1,), numel=4) + b"."
    got = _run_child(tmp_path, 300, {
        "bz2_pickle.pth": (raw_zip([("archive/data.pkl", bomb, 12, 0, 100)]), "numpy"),
        "bz2_storage.pth": (raw_zip([stored("archive/data.pkl", tensor), ("archive/data/0", bomb, 12, 0, 16)]),
                            "numpy"),
    })
    assert got["bz2_pickle.pth"]["type"] == "CheckpointLimitError"
    assert "'archive/data.pkl' is compressed with method 12 (bzip2)" in got["bz2_pickle.pth"]["msg"]
    assert "'archive/data/0' is compressed with method 12 (bzip2)" in got["bz2_storage.pth"]["msg"]


def test_many_expanded_views_share_one_budget(tmp_path):
    """Eight stride-0 views of one element, 256 MiB each when materialised (a 2 KB file that
    needed 2.1 GB): one budget (MAX_EXPAND_BYTES) covers all of a file's expansions, so to='numpy'
    copies the first and returns the rest as read-only views, and to='jittor' refuses the
    second.  The child's limit (700 MiB) holds one materialised view, not eight."""
    body = b"}(" + b"".join(text(f"t{i}") + tensor_pickle((8192, 8192), (0, 0), numel=1) for i in range(8)) + b"u"
    data = checkpoint(body, {"0": np.float32([1.5]).tobytes()})
    got = _run_child(tmp_path, 700, {"expand8.pth": (data, "numpy"), "expand8_jt.pth": (data, "jittor")})
    assert got["expand8.pth"] == {"ok": True, "items": 8, "read_only": 7}
    assert got["expand8_jt.pth"]["type"] == "CheckpointLimitError"
    assert "refusing to materialise it (limit 256 MiB beyond their storages for all the file's tensors, " \
           "0 MiB left)" in got["expand8_jt.pth"]["msg"]


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
    got = _run_child(tmp_path, 300, cases)
    assert got["pickle_bomb.pth"]["type"] == "CheckpointLimitError"
    assert "data.pkl inflates to 1073741824 bytes" in got["pickle_bomb.pth"]["msg"]
    assert "declares 4 elements" in got["storage_bomb.pth"]["msg"]
    assert got["big_storage.pth"] == {"ok": True, "shape": [4], "sum": 0.0}
    assert got["expand.pth"]["type"] == "CheckpointLimitError"
    assert "refusing to materialise" in got["expand.pth"]["msg"]
    assert got["expand_view.pth"]["ok"] and got["expand_view.pth"]["shape"] == [20000, 20000]
