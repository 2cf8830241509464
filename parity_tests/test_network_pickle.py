"""Network pickles (StyleGAN2-ADA's ``network-snapshot-*.pkl``) in a converted project.

A small project written here does what StyleGAN2-ADA does, in its own code: a ``persistence``
module whose decorated classes pickle as ``_reconstruct_persistent_obj(meta)`` with the torch
source of their module, their constructor arguments and their ``__dict__`` (the loader execs
that source), a network of such classes with a torch ``ModuleList``/``Linear`` inside, a
snapshot dict written with plain ``pickle.dump``, and a loader that subclasses
``pickle.Unpickler``.  torch writes the pickle; the loader runs under torch, and converted
unmodified under Jittor on the same file: the same outputs, flags and weights come back.
"""
import subprocess
import sys
import textwrap

import numpy as np

from porter import convert_path
from porter.prove.torchside import torch_python

PERSISTENCE = textwrap.dedent('''
    """Objects that pickle with the source of their class's module (a loader execs it)."""
    import copy
    import inspect
    import sys
    import types

    _persistent = set()
    _module_src = {}
    _src_module = {}


    def persistent_class(cls):
        if cls in _persistent:
            return cls
        module = sys.modules[cls.__module__]
        src = _module_src.get(module) or inspect.getsource(module)

        class Persistent(cls):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self._init_args = copy.deepcopy(args)
                self._init_kwargs = copy.deepcopy(kwargs)

            def __reduce__(self):
                state = super().__reduce__()[2]
                meta = dict(type="class", version=1, module_src=src, class_name=cls.__name__, state=state)
                return _reconstruct_persistent_obj, (meta,)

        Persistent.__name__ = cls.__name__
        _persistent.add(Persistent)
        return Persistent


    def _reconstruct_persistent_obj(meta):
        src = meta["module_src"]
        if src not in _src_module:
            module = types.ModuleType(f"_persisted_{len(_src_module)}")
            sys.modules[module.__name__] = module
            _module_src[module] = src
            _src_module[src] = module
            exec(src, module.__dict__)
        cls = persistent_class(_src_module[src].__dict__[meta["class_name"]])
        obj = cls.__new__(cls)
        obj.__dict__.update(meta["state"])
        return obj
''')

NETS = textwrap.dedent('''
    import torch
    from persist import persistence


    @persistence.persistent_class
    class Scaled(torch.nn.Module):
        def __init__(self, features, gain=1.0):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(features, features) * gain)
            self.register_buffer("scale", torch.ones(features))
            self.register_buffer("scratch", torch.zeros(features), persistent=False)

        def forward(self, x):
            return torch.tanh(x @ self.weight.t()) * self.scale


    @persistence.persistent_class
    class Net(torch.nn.Module):
        def __init__(self, features, depth, head=2):
            super().__init__()
            self.blocks = torch.nn.ModuleList([Scaled(features, gain=0.5) for _ in range(depth)])
            self.head = torch.nn.Linear(features, head)
            self.register_buffer("w_avg", torch.zeros(features))

        def forward(self, x, psi=1.0):
            x = self.w_avg + (x - self.w_avg) * psi
            for block in self.blocks:
                x = block(x)
            return self.head(x)


    @persistence.persistent_class
    class Stats:
        def __init__(self, n):
            self.n = n
            self.mean = torch.zeros(n)
''')

SAVE = textwrap.dedent('''
    import copy
    import pickle
    import sys
    import torch
    from nets import Net, Stats

    torch.manual_seed(0)
    net = Net(4, 2, head=3).train().requires_grad_(False)
    with torch.no_grad():
        for t in list(net.parameters()) + list(net.buffers()):
            t.add_(0.1 * torch.randn_like(t))
    stats = Stats(4)
    stats.mean = torch.arange(4.0)
    snapshot = dict(kwargs=dict(features=4), stats=stats)
    for name, module in [("net", net), ("ema", net)]:
        snapshot[name] = copy.deepcopy(module).eval().requires_grad_(False).cpu()
    snapshot["ema"].head.weight.requires_grad_(True)
    with open(sys.argv[1], "wb") as f:
        pickle.dump(snapshot, f)
''')

LOAD = textwrap.dedent('''
    import pickle
    import sys
    import numpy as np
    import torch


    asked = []


    class _Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            asked.append(name)
            return super().find_class(module, name)


    with open(sys.argv[1], "rb") as f:
        data = _Unpickler(f).load()
    ema = data["ema"]
    x = torch.from_numpy(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    out = [ema(x).detach().numpy(), ema(x, psi=0.5).detach().numpy(), data["net"](x).detach().numpy()]
    flags = [isinstance(ema, torch.nn.Module), ema.training, ema.head.weight.requires_grad,
             ema.blocks[0].weight.requires_grad, ema._init_kwargs == dict(head=3) and ema._init_args == (4, 2),
             data["kwargs"] == dict(features=4), "_reconstruct_persistent_obj" in asked]
    weights = {k: v.detach().numpy() for k, v in ema.state_dict().items()}
    np.savez(sys.argv[2], out=np.stack(out), flags=np.array(flags), mean=data["stats"].mean.numpy(),
             **{"w/" + k: v for k, v in weights.items()})
''')


def _project(root):
    (root / "persist").mkdir(parents=True)
    (root / "persist" / "__init__.py").write_text("")
    (root / "persist" / "persistence.py").write_text(PERSISTENCE)
    (root / "nets.py").write_text(NETS)
    (root / "save.py").write_text(SAVE)
    (root / "load.py").write_text(LOAD)


def _run(python, cwd, *args):
    done = subprocess.run([str(python), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_network_pickle_written_by_torch_loads_in_the_converted_project(tmp_path):
    src = tmp_path / "proj"
    _project(src)
    pkl = tmp_path / "snapshot.pkl"
    _run(torch_python(), src, "save.py", pkl)
    _run(torch_python(), src, "load.py", pkl, tmp_path / "torch.npz")
    convert_path(src, tmp_path / "proj_jt")
    loader = (tmp_path / "proj_jt" / "load.py").read_text()
    assert "class _Unpickler(shims.pickle.Unpickler):" in loader
    assert "jtport:" not in loader + (tmp_path / "proj_jt" / "nets.py").read_text()
    _run(sys.executable, tmp_path / "proj_jt", "load.py", pkl, tmp_path / "jittor.npz")
    want, got = np.load(tmp_path / "torch.npz"), np.load(tmp_path / "jittor.npz")
    # training/requires_grad as pickled, constructor arguments recorded, the subclass consulted
    assert want["flags"].tolist() == [True, False, True, False, True, True, True]
    np.testing.assert_array_equal(got["flags"], want["flags"])
    assert sorted(got.files) == sorted(want.files)  # same state_dict keys (no non-persistent buffer)
    for k in want.files:
        if k.startswith("w/"):  # weights: exactly the file's
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)
    np.testing.assert_array_equal(got["mean"], want["mean"])
    # the loaded weights are the file's, not a fresh init: outputs as torch's (float32 matmuls
    # of 4 terms and tanh, in another order)
    np.testing.assert_allclose(got["out"], want["out"], rtol=1e-5, atol=1e-6)
