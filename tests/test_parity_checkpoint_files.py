"""Which reader a parity checkpoint goes through: ``torch.save`` files vs network pickles."""
import io
import pickle
import zipfile

from porter.prove.checkpoint_files import is_network_pickle, modules_as_state_dicts

_MAGIC = 0x1950a86a20f9469cfc6c


def test_torch_save_formats_and_network_pickles_are_told_apart(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps({}))
    files = {
        "zip.pt": (buf.getvalue(), False),
        "legacy.pt": (pickle.dumps(_MAGIC, protocol=2) + pickle.dumps(1001, protocol=2), False),
        "legacy4.pt": (pickle.dumps(_MAGIC, protocol=4), False),
        "snapshot.pkl": (pickle.dumps({"G": [1, 2]}, protocol=4), True),
        "int.pkl": (pickle.dumps(12345678901234567890, protocol=2), True),
        "text.txt": (b"not a pickle at all", False),
    }
    for name, (data, want) in files.items():
        (tmp_path / name).write_bytes(data)
        assert is_network_pickle(tmp_path / name) is want, name


class _Module:
    def __init__(self, tag):
        self.tag = tag

    def state_dict(self):
        return {"w": self.tag}


def test_modules_become_their_state_dicts_at_any_depth():
    snap = {"G": _Module(1), "list": [_Module(2), (3, _Module(4))], "kwargs": {"res": 16}}
    got = modules_as_state_dicts(snap, lambda m: isinstance(m, _Module))
    assert got == {"G": {"w": 1}, "list": [{"w": 2}, (3, {"w": 4})], "kwargs": {"res": 16}}
