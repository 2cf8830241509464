"""Hostile and malformed checkpoints (issue 20): each is built here and must end in a clear
:class:`CheckpointError` naming the file, without poisoning later loads."""
import collections
import io
import os
import pickle
import signal
import struct
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest

import shims
from shims.checkpoint import CheckpointError, ForbiddenGlobalError

from checkpoint_craft import checkpoint, float_tensor_file, tensor_pickle, text, zip_bytes


def _load_error(tmp_path, data: bytes, **kw) -> str:
    path = tmp_path / "bad.pth"
    path.write_bytes(data)
    with pytest.raises(CheckpointError) as err:
        shims.load(path, **kw)
    assert str(err.value).startswith(f"{path}: ") and str(err.value).count(str(path)) == 1, str(err.value)
    return str(err.value)


def _victim_loads_intact(tmp_path):
    p = tmp_path / "good.pth"
    p.write_bytes(float_tensor_file((1.0, 2.0, 3.0, 4.0)))
    np.testing.assert_array_equal(shims.load(p, to="numpy"), np.float32([1, 2, 3, 4]))


# BUILD on an allow-listed global: {'name': 'BFloat16Storage'} as plain state, and as slot state
_BUILD_ATTACKS = {
    "storage_type_name": b"ctorch\nFloatStorage\n}" + text("name") + text("BFloat16Storage") + b"sb",
    "storage_type_slots": b"ctorch\nFloatStorage\nN}" + text("name") + text("BFloat16Storage")
                          + b"s\x86b",
    "rebuild_defaults": b"ctorch._utils\n_rebuild_tensor_v2\nN}" + text("__defaults__")
                        + b"(K\x01K\x02t" + b"s\x86b",
    "ordered_dict_class": b"ccollections\nOrderedDict\n}" + text("x") + b"K\x01sb",
    "tensor_marker": b"ctorch\nTensor\n}" + text("name") + text("x") + b"sb",
    "numpy_dtype_global": b"cnumpy\ndtype\n}" + text("x") + b"K\x01sb",
}


@pytest.mark.parametrize("attack", sorted(_BUILD_ATTACKS))
def test_build_on_allowlisted_global_is_refused_and_poisons_nothing(tmp_path, attack):
    msg = _load_error(tmp_path, checkpoint(_BUILD_ATTACKS[attack]))
    assert "BUILD" in msg
    _victim_loads_intact(tmp_path)


def test_poisoned_stand_in_inside_one_load_does_not_leak(tmp_path):
    """Even a stand-in reached twice in one file is fresh per load: a later file sees its own."""
    _load_error(tmp_path, checkpoint(_BUILD_ATTACKS["storage_type_slots"]))
    _victim_loads_intact(tmp_path)


def test_empty_file(tmp_path):
    assert "empty file" in _load_error(tmp_path, b"")


def test_truncated_zip(tmp_path):
    data = float_tensor_file()
    assert "truncated or corrupted zip" in _load_error(tmp_path, data[: len(data) // 2])


def test_truncated_legacy(tmp_path):
    head = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2)
    assert "not a readable torch checkpoint" in _load_error(tmp_path, head)


def test_garbage_opcodes_name_the_file(tmp_path):
    msg = _load_error(tmp_path, checkpoint(b"J\xff\xff\xff\xff" * 2 + b"\x8c"))
    assert "not a readable torch checkpoint" in msg


def test_whole_model_refusal_says_to_save_the_state_dict(tmp_path):
    body = b"cmy_project.net\nGenerator\n)\x81}b"
    with pytest.raises(ForbiddenGlobalError) as err:
        p = tmp_path / "model.pth"
        p.write_bytes(checkpoint(body))
        shims.load(p)
    assert "state_dict()" in str(err.value) and "weights_only=False" in str(err.value)


def test_only_stored_and_deflated_members_are_read(tmp_path):
    """torch's reader (miniz) reads stored and deflated members; so does shims.load.  bzip2 and
    LZMA ones are refused from their header (zipfile inflates them unbounded: the bombs test)."""
    pkl = b"\x80\x02" + tensor_pickle((4,), (1,), numel=4) + b"."
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=method) as zf:
            zf.writestr("archive/data.pkl", pkl)
            zf.writestr("archive/data/0", np.float32([1, 2, 3, 4]).tobytes())
        if method == zipfile.ZIP_DEFLATED:
            p = tmp_path / "deflated.pth"
            p.write_bytes(buf.getvalue())
            np.testing.assert_array_equal(shims.load(p, to="numpy"), [1, 2, 3, 4])
        else:
            msg = _load_error(tmp_path, buf.getvalue())
            assert f"'archive/data.pkl' is compressed with method {method} " in msg and "refusing" in msg


def test_trusted_whole_model_errors_name_the_file_once(tmp_path):
    """weights_only=False: a model whose class is not importable here, and torch's own layer
    saved whole without the attributes that name its arguments, are refused with the path said
    once (it was said twice)."""
    state = b"}(" + text("_parameters") + b"}" + text("_modules") + b"}ub"
    missing = _load_error(tmp_path, checkpoint(b"cmy_missing_project.net\nGenerator\n)\x81" + state),
                          weights_only=False)
    assert "class my_missing_project.net.Generator is not importable here" in missing
    own = _load_error(tmp_path, checkpoint(b"ctorch.nn.modules.linear\nLinear\n)\x81" + state),
                      weights_only=False)
    assert "Linear: cannot build torch.nn.Linear from the attributes the file records" in own


def test_complex_values_load(tmp_path):
    """torch writes Python complex as __builtin__.complex(real, imag) (REDUCE) or NEWOBJ."""
    body = (b"}(" + text("c") + b"c__builtin__\ncomplex\nG" + struct.pack(">d", 1.0)
            + b"G" + struct.pack(">d", 2.0) + b"\x86R" + text("n") + b"c__builtin__\ncomplex\n"
            + b"G" + struct.pack(">d", -3.0) + b"G" + struct.pack(">d", 0.5) + b"\x86\x81u")
    p = tmp_path / "c.pth"
    p.write_bytes(checkpoint(body))
    assert shims.load(p) == {"c": 1 + 2j, "n": -3 + 0.5j}


def test_newobj_on_other_globals_is_refused(tmp_path):
    assert "NEWOBJ" in _load_error(tmp_path, checkpoint(b"c__builtin__\nset\n)\x81"))


def test_numpy_arrays_and_scalars_inside_a_torch_pickle(tmp_path):
    """torch.save({'a': np.ndarray, 's': np.float32}) pickles numpy's reconstruct path."""
    arrays = {"a": np.arange(6, dtype=">i4").reshape(2, 3), "f": np.asfortranarray(np.eye(2)),
              "s": np.float32(2.5), "b": np.array([True, False])}
    p = tmp_path / "np.pth"
    p.write_bytes(checkpoint(pickle.dumps(arrays, protocol=2)[2:-1]))
    back = shims.load(p)
    for k, v in arrays.items():
        assert np.asarray(back[k]).tobytes() == np.asarray(v).astype(np.asarray(v).dtype.newbyteorder("=")).tobytes()
        assert np.asarray(back[k]).shape == np.shape(v), k
    assert isinstance(back["a"], np.ndarray) and back["a"].flags.writeable


def test_numpy_object_arrays_are_refused(tmp_path):
    body = pickle.dumps(np.array([{"x": 1}], dtype=object), protocol=2)[2:-1]
    assert "dtype 'O8' refused" in _load_error(tmp_path, checkpoint(body))


def test_exponential_hash_dag_is_refused_quickly(tmp_path):
    """t0=(); t_{k+1}=(t_k, t_k): 60 levels are ~400 bytes, hashing t_60 would take 2**60 steps."""
    body = b")" + b"\x94" + b"".join(b"h" + bytes([i]) + b"h" + bytes([i]) + b"\x86\x94" for i in range(60))
    body = b"}" + body + b"K\x01s"
    start = time.perf_counter()
    assert "dict key" in _load_error(tmp_path, checkpoint(body))
    assert time.perf_counter() - start < 5


def test_shared_references_stay_shared_and_linear(tmp_path):
    """l_{k+1} = [l_k, l_k]: 60 levels of sharing are walked once each (not 2**60 times)."""
    body = b"]" + b"\x94" + b"".join(b"(h" + bytes([i]) + b"h" + bytes([i]) + b"l\x94" for i in range(60))
    p = tmp_path / "dag.pth"
    p.write_bytes(checkpoint(body))
    out = shims.load(p)
    assert out[0] is out[1]


def test_cycles_load(tmp_path):
    body = b"]\x94h\x00a"  # a list containing itself
    p = tmp_path / "cycle.pth"
    p.write_bytes(checkpoint(body))
    out = shims.load(p)
    assert out[0] is out


def test_oversized_storage_record_is_refused(tmp_path):
    """A record larger than its id declares (the 1.5 GB-behind-4-elements file, small here)."""
    data = checkpoint(tensor_pickle((4,), (1,), numel=4), {"0": b"\0" * 4096})
    assert "declares 4 elements" in _load_error(tmp_path, data)


def test_truncated_storage_record_is_refused(tmp_path):
    data = checkpoint(tensor_pickle((4,), (1,), numel=4), {"0": b"\0" * 8})
    assert "truncated" in _load_error(tmp_path, data)


def test_file_objects_round_trip(tmp_path):
    obj = collections.OrderedDict(w=np.arange(3, dtype=np.float32), n=np.float64(1.5))
    buf = io.BytesIO()
    shims.save(obj, buf)
    buf.seek(0)
    back = shims.load(buf, to="numpy")
    np.testing.assert_array_equal(back["w"], obj["w"])
    path = tmp_path / "f.pth"
    with open(path, "wb") as f:
        shims.save(obj, f)
    with open(path, "rb") as f:
        np.testing.assert_array_equal(shims.load(f, to="numpy")["w"], obj["w"])
    with open(path, "rb") as f:
        f.read()  # a file object's errors name its file too
        f.seek(3)
        with pytest.raises(CheckpointError, match=str(path)):
            shims.load(f)


def test_save_keeps_zero_d_arrays(tmp_path):
    p = tmp_path / "s.pth"
    shims.save({"s": np.array(3.5, np.float32), "t": np.array(7, np.int64)}, p)
    back = shims.load(p, to="numpy")
    assert back["s"].shape == () and back["s"] == np.float32(3.5) and back["t"].shape == ()


def test_interrupted_save_keeps_the_old_file(tmp_path, monkeypatch):
    """A save that dies half-way (here: an error while writing) leaves the previous checkpoint
    untouched and no temporary file behind."""
    import shims.checkpoint.writer as writer
    p = tmp_path / "ck.pth"
    shims.save({"w": np.ones(4, np.float32)}, p)
    good = p.read_bytes()

    def half_write(f, pickle_bytes, storages):
        f.write(pickle_bytes[:10])
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "_write_zip", half_write)
    with pytest.raises(KeyboardInterrupt):
        shims.save({"w": np.zeros(4, np.float32)}, p)
    assert p.read_bytes() == good
    assert sorted(x.name for x in tmp_path.iterdir()) == ["ck.pth"]


def test_save_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.pth"
    link = tmp_path / "link.pth"
    shims.save({"w": np.ones(1, np.float32)}, real)
    link.symlink_to(real)
    shims.save({"w": np.zeros(1, np.float32)}, link)
    assert link.is_symlink() and shims.load(real, to="numpy")["w"][0] == 0


def test_stride_zero_view_is_a_view_in_numpy_and_refused_for_jittor(tmp_path):
    """size (20000, 20000), stride (0, 0) over 4 floats: torch keeps it as a 16-byte view."""
    p = tmp_path / "expand.pth"
    p.write_bytes(checkpoint(tensor_pickle((20000, 20000), (0, 0), numel=4),
                             {"0": np.arange(4, dtype="<f4").tobytes()}))
    view = shims.load(p, to="numpy")
    assert view.shape == (20000, 20000) and view.strides == (0, 0) and not view.flags.writeable
    msg = _load_error(tmp_path, p.read_bytes())
    assert "refusing to materialise" in msg and "to='numpy'" in msg


def test_small_expanded_view_is_materialised(tmp_path):
    p = tmp_path / "expand.pth"
    p.write_bytes(checkpoint(tensor_pickle((3, 2), (0, 1), numel=4),
                             {"0": np.arange(4, dtype="<f4").tobytes()}))
    np.testing.assert_array_equal(shims.load(p).numpy(), [[0, 1]] * 3)


def test_unknown_zip_layout(tmp_path):
    assert "data.pkl" in _load_error(tmp_path, zip_bytes([("x/y/z", b"")]))


_SAVER = """
import os, sys
import numpy as np
import shims
big = {"w": np.full(16 << 20, 2.0, np.float32)}  # 64 MiB
print(os.getpid(), flush=True)
while True:
    shims.save(big, sys.argv[1])
"""


def test_kill_9_during_save_leaves_a_whole_checkpoint(tmp_path):
    """A saver SIGKILLed while writing over a good checkpoint: the file is still a whole one
    (the old or the new), never a torn prefix."""
    target = tmp_path / "ck.pth"
    shims.save({"w": np.ones(4, np.float32)}, target)
    # under sh: the saver's death by SIGKILL must not reach Jittor's SIGCHLD handler here
    proc = subprocess.Popen(["sh", "-c", '"$@"; exit $?', "sh", sys.executable, "-c", _SAVER,
                             str(target)], stdout=subprocess.PIPE, text=True)
    pid = int(proc.stdout.readline())
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob(".ck.pth.*.tmp")):
        time.sleep(0.005)
    assert list(tmp_path.glob(".ck.pth.*.tmp")), "the saver never started writing"
    os.kill(pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == 128 + signal.SIGKILL
    w = shims.load(target, to="numpy")["w"]
    assert (w.shape, float(w[0])) in [((4,), 1.0), ((16 << 20,), 2.0)]
