"""``jtport parity SPEC`` end to end: a user's torch project, converted by ``porter`` (as a user
would with ``jtport convert``), compared through a spec file; then the same spec pointed at a
perturbed factory must fail and name the perturbed layer."""

import pytest

from porter import convert_path
from porter.parity_cmd import main
from porter.parity.spec import SpecError, load_spec

TORCH_MODEL = '''
import torch
from torch import nn


class Tiny(nn.Module):
    def __init__(self, slope=0.2):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.act = nn.ReLU()
        self.body = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.LeakyReLU(slope))
        self.head = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        h = self.act(self.stem(x))
        h = self.act(self.body(h) + h)
        return self.head(h.flatten(1)), h.mean()


def build():
    return Tiny()


def build_perturbed():
    return Tiny(slope=0.1)
'''

SPEC = '''
factory = "tinynet:build"
torch_root = "src"
jittor_root = "src_jittor"
{extra}
seed = 0
rtol = 1e-5
atol = 1e-6

[inputs]
x = [2, 3, 4, 4]

[train]
steps = 2
optimizer = {{ name = "sgd", lr = 0.05, momentum = 0.9 }}
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("user_project")
    (root / "src").mkdir()
    (root / "src" / "tinynet.py").write_text(TORCH_MODEL)
    report = convert_path(root / "src", root / "src_jittor")
    assert not report.unsupported and not report.errors
    return root


def write_spec(root, name, extra=""):
    path = root / f"{name}.toml"
    path.write_text(SPEC.format(extra=extra))
    return path


def test_converted_user_model_passes(project, capsys):
    spec = write_spec(project, "good")
    assert main([str(spec), "--out", str(project / "out")]) == 0
    out = capsys.readouterr().out
    assert "ok   forward" in out and "ok   grads" in out and "ok   steps" in out


def test_perturbed_counterpart_fails_naming_the_layer(project, capsys):
    # A different factory on the Jittor side only: slope 0.1 instead of 0.2 in body.1.
    spec = write_spec(project, "bad", extra='jittor_factory = "tinynet:build_perturbed"')
    # Same torch side as the good spec: the cached reference in "out" is reused.
    assert main([str(spec), "--out", str(project / "out")]) == 1
    out = capsys.readouterr().out
    assert "FAIL forward" in out and "first diverging submodule: body.1@0" in out


def test_bad_specs_are_rejected_with_file_and_key(tmp_path, capsys):
    bad = tmp_path / "s.toml"
    bad.write_text('factory = "nocolon"\ntorch_root = "."\njittor_root = "."\n[inputs]\nx = [2]\n')
    with pytest.raises(SpecError, match=r"s\.toml: factory must be 'module:callable'"):
        load_spec(bad)
    bad.write_text('factory = "m:f"\ntorch_root = "."\njittor_root = "."\n[inputs]\nx = [2, -1]\n')
    with pytest.raises(SpecError, match="inputs.x"):
        load_spec(bad)
    bad.write_text('factory = "m:f"\ntorch_root = "."\njittor_root = "."\ntypo = 1\n[inputs]\nx = [2]\n')
    assert main([str(bad)]) == 2
    assert "unknown key(s) ['typo']" in capsys.readouterr().err


def test_unreadable_spec_is_a_spec_error(tmp_path, capsys):
    """A folder given as the spec is reported as unreadable (exit 2), not a traceback."""
    folder = tmp_path / "spec.toml"
    folder.mkdir()
    with pytest.raises(SpecError, match="cannot read the spec file"):
        load_spec(folder)
    assert main([str(folder)]) == 2
    assert "cannot read the spec file" in capsys.readouterr().err
