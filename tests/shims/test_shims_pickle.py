"""``shims.pickle``: the stdlib unpickler with torch's tensor, storage and persistence globals as
Jittor objects.  The pickles here are written opcode by opcode (no torch in this environment);
``parity_tests/test_network_pickle.py`` checks a real torch-written one end to end."""
import pickle
import struct
import textwrap

import numpy as np
import pytest

import shims
from shims.checkpoint import persistent
from checkpoint_craft import ints, run_python_child, text

_MAGIC = 0x1950a86a20f9469cfc6c


def storage_bytes(values) -> bytes:
    """What torch's ``TypedStorage.__reduce__`` embeds: a legacy ``torch.save`` of one float
    storage (magic, protocol, sys info, the storage's persistent id, its key list, its data)."""
    arr = np.asarray(values, "<f4")
    head = b"".join(pickle.dumps(v, protocol=2) for v in
                    (_MAGIC, 1001, {"protocol_version": 1001, "little_endian": True}))
    main = (b"\x80\x02(" + text("storage") + b"ctorch\nFloatStorage\n" + text("0") + text("cpu")
            + b"J" + struct.pack("<i", arr.size) + b"Nt" + b"Q.")
    return head + main + pickle.dumps(["0"], protocol=2) + struct.pack("<q", arr.size) + arr.tobytes()


def tensor(values, size, stride, offset=0, parameter=None) -> bytes:
    """A pickle body: ``_rebuild_tensor_v2(_load_from_bytes(...), ...)`` as plain pickle writes a
    tensor; wrapped in ``_rebuild_parameter(t, requires_grad, OrderedDict())`` for a parameter."""
    data = storage_bytes(values)
    body = (b"ctorch._utils\n_rebuild_tensor_v2\n("
            + b"ctorch.storage\n_load_from_bytes\n(B" + struct.pack("<I", len(data)) + data + b"tR"
            + b"J" + struct.pack("<i", offset) + ints(size) + ints(stride)
            + b"\x89ccollections\nOrderedDict\n)RtR")
    if parameter is None:
        return body
    return (b"ctorch._utils\n_rebuild_parameter\n(" + body + (b"\x88" if parameter else b"\x89")
            + b"ccollections\nOrderedDict\n)RtR")


def whole(body: bytes) -> bytes:
    return b"\x80\x03" + body + b"."


def test_tensors_and_parameters_become_vars_with_torch_values_and_flags():
    t = shims.pickle.loads(whole(tensor([1, 2, 3, 4, 5, 6], (2, 2), (1, 3), offset=1)))
    np.testing.assert_array_equal(t.numpy(), [[2, 5], [3, 6]])  # a strided view, copied out
    frozen = shims.pickle.loads(whole(tensor([1, 2], (2,), (1,), parameter=False)))
    trained = shims.pickle.loads(whole(tensor([1, 2], (2,), (1,), parameter=True)))
    assert (frozen.requires_grad, trained.requires_grad) == (False, True)


def test_a_view_past_its_storage_is_refused():
    with pytest.raises(pickle.UnpicklingError, match="past its storage"):
        shims.pickle.loads(whole(tensor([1, 2, 3], (2,), (3,))))


def test_other_torch_globals_are_refused_naming_them_and_the_rest_is_stdlib():
    with pytest.raises(pickle.UnpicklingError, match="torch's torch.hub.load"):
        shims.pickle.loads(b"\x80\x02ctorch.hub\nload\n.")
    data = {"a": [1, 2.5, None], "b": (np.arange(3), {"c"}), "d": b"x"}
    got = shims.pickle.loads(pickle.dumps(data))
    assert got.keys() == data.keys() and got["a"] == data["a"] and got["d"] == b"x"
    np.testing.assert_array_equal(got["b"][0], np.arange(3))


def test_a_subclass_overrides_find_class_and_calls_super():
    asked = []

    class Legacy(shims.pickle.Unpickler):
        def find_class(self, module, name):
            asked.append((module, name))
            if module == "old.place":
                return dict
            return super().find_class(module, name)

    import io
    got = Legacy(io.BytesIO(whole(b"cold.place\nthing\n)R" + tensor([7], (1,), (1,)) + b"\x86"))).load()
    assert got[0] == {} and got[1].numpy().tolist() == [7.0]
    assert ("old.place", "thing") in asked and ("torch._utils", "_rebuild_tensor_v2") in asked


TORCH_SRC = textwrap.dedent('''
    import torch


    class Affine(torch.nn.Module):
        def __init__(self, n, bias=True):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(n, n))
            self.bias = torch.nn.Parameter(torch.zeros(n)) if bias else None

        def forward(self, x):
            return x @ self.weight.t() + self.bias
''')


def _persistent_pickle(tmp_path, monkeypatch, state) -> bytes:
    """A pickle of ``pkg.persistence._reconstruct_persistent_obj(meta)`` with TORCH_SRC (a tiny
    persistence module of this test's own; stdlib pickle names it by reference)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "persistence.py").write_text(
        "def _reconstruct_persistent_obj(meta):\n    raise AssertionError('the torch loader')\n\n"
        "def persistent_class(cls):\n    cls.decorated = True\n    return cls\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from pkg import persistence

    class Obj:
        def __reduce__(self):
            meta = dict(type="class", version=1, module_src=TORCH_SRC, class_name="Affine", state=state)
            return persistence._reconstruct_persistent_obj, (meta,)

    return pickle.dumps({"net": Obj(), "again": Obj()})


def test_a_persistent_module_is_rebuilt_from_its_converted_source(tmp_path, monkeypatch):
    w, b = np.arange(4, dtype=np.float32).reshape(2, 2), np.array([1, -1], np.float32)
    state = {"_parameters": {"weight": w, "bias": b}, "_buffers": {}, "_modules": {}, "training": False,
             "_init_args": (2,), "_init_kwargs": {"bias": True}}
    got = shims.pickle.loads(_persistent_pickle(tmp_path, monkeypatch, state))
    net = got["net"]
    assert isinstance(net, shims.nn.Module) and not net.is_train and type(net).decorated
    np.testing.assert_array_equal(net.weight.numpy(), w)
    np.testing.assert_array_equal(net(shims.from_numpy(np.ones((1, 2), np.float32))).numpy(), [[2, 4]])
    assert type(got["again"]) is type(net)  # one converted module per source
    import inspect
    assert "shims.nn.Module" in inspect.getsource(persistent.converted_module(TORCH_SRC))


def test_a_persistent_module_whose_recorded_weights_do_not_fit_fails(tmp_path, monkeypatch):
    state = {"_parameters": {"weight": np.zeros((2, 2), np.float32)}, "_buffers": {}, "_modules": {},
             "training": True, "_init_args": (2,), "_init_kwargs": {}}
    with pytest.raises(RuntimeError, match="bias"):
        shims.pickle.loads(_persistent_pickle(tmp_path, monkeypatch, state))


def test_shims_imports_and_unpickles_without_the_converter():
    code = ("import sys; sys.modules['porter.convert'] = None  # the leaves (porter.machine, .mapping) stay\n"
            "import pickle, shims\n"
            "assert shims.pickle.loads(pickle.dumps({'a': [1]})) == {'a': [1]}\n"
            "from shims.checkpoint import persistent\n"
            "try:\n"
            "    persistent.converted_module('import torch\\n')\n"
            "except pickle.UnpicklingError as e:\n"
            "    print('refused:', e)\n")
    done = run_python_child(["-c", code])
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "jtport's converter" in done.stdout
