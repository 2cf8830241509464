"""``shims.load(f, weights_only=False)`` makes the program's own objects again as torch's unpickler
does: ``__new__`` + the pickled ``__dict__``, never ``__init__`` (awd-lstm-lm saves
``[model, criterion, optimizer]``; its model's constructor takes five arguments)."""
import sys
import textwrap

import numpy as np
import pytest

import jittor as jt
import shims
from shims.checkpoint import CheckpointError, ForbiddenGlobalError

PROJECT = textwrap.dedent("""
    import jittor as jt

    INITS = []


    def noop(*args, **kwargs):
        return None


    class Net(jt.Module):
        def __init__(self, n_in, n_out, scale, tie=True):
            super().__init__()
            INITS.append(self)
            self.enc = jt.nn.Linear(n_in, n_out)
            self.dec = jt.nn.Linear(n_out, n_in)
            if tie:
                self.shared = self.enc.weight
            self.blocks = jt.nn.ModuleList([jt.nn.Linear(n_out, n_out) for _ in range(2)])
            self.scale = scale
            self.act = noop
            self.enc.flatten_parameters = self.widget  # a bound method stored on a submodule

        def widget(self):
            return self.scale

        def execute(self, x):
            h = self.enc(x)
            for b in self.blocks:
                h = b(h)
            return self.dec(h) * self.scale


    class Criterion:
        def __init__(self, splits):
            INITS.append(self)
            self.splits = splits
            self.weights = jt.array([1.0, 2.0])
""")


@pytest.fixture()
def project(tmp_path, monkeypatch):
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "awd_like.py").write_text(PROJECT)
    monkeypatch.syspath_prepend(str(pkg))
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", raising=False)
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", raising=False)
    import awd_like
    yield awd_like
    sys.modules.pop("awd_like", None)


def test_objects_whose_init_takes_arguments_come_back_without_init(project, tmp_path):
    model = project.Net(3, 4, 0.5)
    model.eval()
    crit = project.Criterion([2, 5])
    x = jt.array(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    want = model(x).numpy()
    path = tmp_path / "all.pt"
    shims.save([model, crit, {"epoch": 3}], path)
    inits = len(project.INITS)

    got_model, got_crit, meta = shims.load(path, weights_only=False)

    assert len(project.INITS) == inits, "__init__ ran while loading"
    assert type(got_model) is project.Net and type(got_crit) is project.Criterion
    assert meta == {"epoch": 3} and got_crit.splits == [2, 5] and got_model.scale == 0.5
    assert got_model.is_train is False
    assert got_model.act is project.noop
    assert got_model.shared is got_model.enc.weight, "a Var reached twice must stay one Var"
    assert got_model.enc.flatten_parameters() == 0.5
    assert got_model.enc.flatten_parameters.__self__ is got_model
    np.testing.assert_array_equal(got_crit.weights.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(got_model(x).numpy(), want)
    assert len(got_model.parameters()) == len(model.parameters())


def test_weights_only_follows_the_argument_and_torchs_environment(project, tmp_path, monkeypatch):
    path = tmp_path / "m.pt"
    shims.save(project.Criterion([1]), path)
    with pytest.raises(ForbiddenGlobalError, match="awd_like.Criterion"):
        shims.load(path)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    assert shims.load(path).splits == [1]
    with pytest.raises(ForbiddenGlobalError):
        shims.load(path, weights_only=True)  # the environment overrides only an unset argument
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of"):
        shims.load(path)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    with pytest.raises(ForbiddenGlobalError):
        shims.load(path, weights_only=False)


class _OwnNew:
    def __new__(cls, *args):
        raise AssertionError("ran")


def test_a_class_with_its_own_new_is_refused(tmp_path):
    obj = object.__new__(_OwnNew)
    obj.x = 1
    path = tmp_path / "own.pt"
    shims.save(obj, path)
    with pytest.raises(CheckpointError, match="__new__ of its own"):
        shims.load(path, weights_only=False)


def test_lambdas_and_local_functions_are_refused_when_saving(tmp_path):
    with pytest.raises(TypeError, match="defined inside a function"):
        shims.save({"f": lambda x: x}, tmp_path / "f.pt")
