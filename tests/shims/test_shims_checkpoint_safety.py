"""``shims.load`` refuses malicious checkpoints before anything in them runs.

Every payload below would create a marker file when unpickled normally (the positive control
proves the payload is live); through ``shims.load`` it must raise ``ForbiddenGlobalError`` (a
``pickle.UnpicklingError``) naming the global, and the marker must not appear.
"""
import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

import shims
from shims.checkpoint import CheckpointError, ForbiddenGlobalError


class _SystemCall:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _EvalCall:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w').write('pwned')",))


def _payloads(marker):
    """(name, pickle bytes) of attacks, each creating ``marker`` when unpickled normally."""
    cmd = f"touch {marker}".encode()
    return {
        "global_os_system_proto0": b"cos\nsystem\n(S'" + cmd + b"'\ntR.",
        "reduce_posix_system": pickle.dumps(_SystemCall(marker), protocol=2),
        "stack_global_proto4": pickle.dumps(_SystemCall(marker), protocol=4),
        "builtins_eval": pickle.dumps(_EvalCall(marker), protocol=2),
        "nested_in_ordered_dict": pickle.dumps(
            collections.OrderedDict(w=[1, 2], evil={"x": _SystemCall(marker)}), protocol=2),
        "inst_opcode": b"(S'" + cmd + b"'\nios\nsystem\n.",
    }


def _legacy(payload: bytes) -> bytes:
    """A legacy-format torch file whose *first* pickle (the magic number) is the payload."""
    return payload


def _legacy_main(payload: bytes) -> bytes:
    """A well-formed legacy header followed by the payload as the main pickle."""
    head = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2)
    head += pickle.dumps({"protocol_version": 1001, "little_endian": True}, protocol=2)
    return head + payload


def _zip(payload: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


@pytest.mark.parametrize("wrap", [_legacy, _legacy_main, _zip], ids=["legacy_magic", "legacy_main", "zip"])
@pytest.mark.parametrize("attack", sorted(_payloads("x")))
def test_malicious_pickle_is_refused_and_does_not_run(tmp_path, attack, wrap):
    marker = tmp_path / "pwned"
    payload = _payloads(marker)[attack]
    path = tmp_path / "evil.pth"
    path.write_bytes(wrap(payload))
    with pytest.raises(ForbiddenGlobalError) as err:
        shims.load(path)
    assert isinstance(err.value, pickle.UnpicklingError)
    assert str(path) in str(err.value)
    assert any(name in str(err.value)
               for name in ("os.system", "posix.system", "builtins.eval", "__builtin__.eval")), str(err.value)
    assert not marker.exists(), "the payload ran"


def test_payload_is_live_positive_control(tmp_path):
    """Unrestricted unpickling of the same bytes does run the code (so the test above is real).
    The eval payload is used: it needs no fork, so a busy machine cannot make it flaky."""
    marker = tmp_path / "pwned"
    pickle.loads(_payloads(marker)["builtins_eval"])
    assert marker.exists()


def _ints(values) -> bytes:
    """Pickle opcodes for a tuple of small ints (MARK, BININT1..., TUPLE); no memo."""
    return b"(" + b"".join(b"K" + bytes([v]) for v in values) + b"t"


def _zip_tensor(size, stride, offset, numel=4):
    """A torch-style zip checkpoint holding one FloatStorage of ``numel`` and one tensor view,
    written opcode by opcode (independent of shims' own writer)."""
    text = lambda s: b"X" + struct.pack("<I", len(s)) + s.encode()  # noqa: E731
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n("
           + b"(" + text("storage") + b"ctorch\nFloatStorage\n" + text("0") + text("cpu")
           + b"K" + bytes([numel]) + b"tQ"
           + b"K" + bytes([offset]) + _ints(size) + _ints(stride)
           + b"\x89ccollections\nOrderedDict\n)RtR.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr("archive/data/0", np.arange(numel, dtype="<f4").tobytes())
    return buf.getvalue()


def test_handmade_tensor_view_loads(tmp_path):
    p = tmp_path / "ok.pth"
    p.write_bytes(_zip_tensor((2,), (2,), 1))
    np.testing.assert_array_equal(shims.load(p, to="numpy"), np.array([1.0, 3.0], np.float32))


@pytest.mark.parametrize("size,stride,offset", [((10,), (1,), 0), ((2,), (3,), 1), ((2, 2), (2, 1), 1)])
def test_out_of_bounds_view_is_refused(tmp_path, size, stride, offset):
    """A view reaching past its storage would read foreign memory through as_strided: refused."""
    p = tmp_path / "oob.pth"
    p.write_bytes(_zip_tensor(size, stride, offset))
    with pytest.raises(pickle.UnpicklingError, match="past its storage"):
        shims.load(p)


def test_weights_only_false_still_runs_nothing(tmp_path):
    """Trusting the file rebuilds models from converted classes, but never calls what the
    pickle names: the payloads stay inert records and are refused as objects."""
    marker = tmp_path / "pwned"
    for attack, payload in _payloads(marker).items():
        path = tmp_path / f"{attack}.pth"
        path.write_bytes(_zip(payload))
        with pytest.raises(CheckpointError, match="cannot be loaded|cannot be rebuilt"):
            shims.load(path, weights_only=False)
    assert not marker.exists(), "the payload ran"


def test_not_a_checkpoint(tmp_path):
    p = tmp_path / "junk.pth"
    p.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(pickle.UnpicklingError, match="bad magic number"):
        shims.load(p)


def test_save_rejects_objects(tmp_path):
    with pytest.raises(TypeError, match=r"obj\['m'\] is a _SystemCall"):
        shims.save({"m": _SystemCall("x")}, tmp_path / "x.pth")


def test_save_load_round_trip_keeps_dtypes(tmp_path):
    obj = collections.OrderedDict(
        a=np.arange(6, dtype=np.int64).reshape(2, 3)[:, 1:], b=np.float16([1.5, -2]),
        c=[np.bool_([True, False]), 3, "s", None], d=(np.zeros((0, 2), np.float32),))
    p = tmp_path / "rt.pth"
    shims.save(obj, p)
    back = shims.load(p, to="numpy")
    assert list(back) == list(obj)
    for got, want in [(back["a"], obj["a"]), (back["b"], obj["b"]), (back["c"][0], obj["c"][0]),
                      (back["d"][0], obj["d"][0])]:
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
    assert back["c"][1:] == [3, "s", None]


class _Corpus:
    """A program's own plain object (awd-lstm-lm caches its dataset with ``torch.save(corpus, fn)``)."""


def test_save_writes_a_plain_object_as_pickle_does(tmp_path):
    corpus = _Corpus()
    corpus.ids = [1, 2]
    corpus.train = np.arange(3, dtype=np.int64)
    shims.save(corpus, tmp_path / "corpus.pt")
    with zipfile.ZipFile(tmp_path / "corpus.pt") as zf:
        data = zf.read(next(n for n in zf.namelist() if n.endswith("/data.pkl")))

    class Reader(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return lambda storage, *rest: ("tensor", storage, rest[1])
            if module == "torch":  # the storage's type (LongStorage), inside its persistent id
                return name
            return super().find_class(module, name)

        def persistent_load(self, pid):
            return pid[2]  # the storage's key

    back = Reader(io.BytesIO(data)).load()
    assert type(back) is _Corpus and back.ids == [1, 2] and back.train == ("tensor", "0", (3,))
