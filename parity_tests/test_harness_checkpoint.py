"""A spec's ``checkpoint``: ``jtport parity`` proves the port loads a file the torch code wrote.

The file is a HiSD checkpoint saved the way upstream's trainer saves it (``models_ref.hisd``'s
``HiSD_Trainer.save`` after two iterations: ``{'gen': ..., 'gen_test': ...}``, see
``torch_side/hisd_checkpoint.py``); the spec builds ``Gen`` (the shipped ``hisd.toml``'s way) on
``models_ref`` and its conversion.  Both sides load ``gen_test`` from that file; the
``checkpoint`` row compares the loaded weights exactly; a wrong key, a file that is not a state
dict and a converted model that does not fit the file each fail with a message naming them.
"""
from pathlib import Path

import numpy as np
import pytest

from porter.prove import checkpoint
from porter.prove.processes import run_module
from porter.prove.spec import SpecError, load_spec
from porter.prove.torchside import ROOT, TorchSide
from porter.prove.ported import PORTED, import_ported

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "hisd_checkpoint.py", "hisd_checkpoint",
                       (ROOT / "models_ref" / "hisd", ROOT / "porter" / "prove" / "torch_side" / "torch_dump.py"))
GEN_FILE = "gen_00000002.pt"

#: models_ref.hisd.configs.tiny_config's networks: what HiSD_Trainer built the file with.
SPEC = '''
factory = "models_ref.hisd.networks:Gen"
method = "translate"
forward_kwargs = {{ i = 0 }}
torch_root = "{torch_root}"
jittor_root = "{jittor_root}"
{extra}
seed = 0
rtol = 1e-4
atol = 1e-5

[factory_kwargs.hyperparameters]
input_dim = 3
style_dim = 8
noise_dim = 8
discriminators = {{ channels = [8, 16, 16, 16] }}
extractors = {{ channels = [8, 16, 16, 16] }}
encoder = {{ channels = [8, 16] }}
translators = {{ channels = [16, 16, 16] }}
decoder = {{ channels = [16, 8] }}
mappers = {{ pre_channels = [8, 16, 16], post_channels = [16, 16, 16] }}
tags = [{tags}]

[inputs]
e = [2, 16, 8, 8]
s = [2, 8]

[train]
steps = 1
optimizer = {{ name = "adam", lr = 1e-4, betas = [0.0, 0.99] }}
'''
TAG = '{{ name = "{}", tag_irrelevant_conditions_dim = 2, attributes = [{{ name = "with" }}, {{ name = "without" }}] }}'
TWO_TAGS = ", ".join(TAG.format(n) for n in ("Bangs", "Eyeglasses"))


def write_spec(folder: Path, name: str, extra: str = "", tags: str = TWO_TAGS) -> Path:
    """A spec on models_ref (torch) and build/ported (its conversion)."""
    import_ported("models_ref.hisd.networks")  # converts models_ref into build/ported
    path = folder / f"{name}.toml"
    path.write_text(SPEC.format(torch_root=ROOT, jittor_root=PORTED, extra=extra, tags=tags))
    return path


def parity(spec: Path, out: Path, *extra) -> "tuple[int, str]":
    """``jtport parity SPEC`` in a process of its own (as users run it): exit code, output."""
    proc = run_module("porter.cli", ["parity", spec, "--out", out, *extra], ROOT, out.parent, timeout=1800)
    return proc.returncode, proc.stdout + proc.stderr


def saved(name: str) -> dict:
    """The torch side's checkpoint ``name``, as numpy arrays (read through shims.load)."""
    import shims

    return shims.load(str(TORCH_SIDE.run() / name), to="numpy")


def test_upstream_checkpoint_loads_and_matches(tmp_path):
    """checkpoint + checkpoint_key = "gen_test": both sides load the trainer's EMA generator; the
    checkpoint row matches exactly, then forward, gradients and a step pass.  The torch side's
    weights are the file's gen_test (not gen, not the seeded build), and its outputs differ from
    the seeded build's: the checkpoint is what ran."""
    from porter.prove.command import _torch_side
    from porter.prove.reference import Reference
    from porter.prove.workspace import default_torch_python

    ckpt = TORCH_SIDE.run() / GEN_FILE
    spec = write_spec(tmp_path, "hisd_ckpt", 'checkpoint_key = "gen_test"')
    code, out = parity(spec, tmp_path / "out", "--checkpoint", ckpt)
    assert code == 0, out[-4000:]
    for case in ("checkpoint", "forward", "grads", "steps"):
        assert f"ok   {case}" in out, out
    assert f"loaded {ckpt} [gen_test] through shims.load" in out, out

    ref = Reference(tmp_path / "out" / "reference.npz")
    file = saved(GEN_FILE)
    assert set(ref.state_dict) == set(file["gen_test"])
    assert all(np.array_equal(ref.state_dict[k], v) for k, v in file["gen_test"].items())
    assert any(not np.array_equal(ref.state_dict[k], v) for k, v in file["gen"].items())

    seeded = tmp_path / "seeded"
    seeded.mkdir()
    assert _torch_side(load_spec(spec), seeded, default_torch_python()) is None
    plain = Reference(seeded / "reference.npz")
    assert not np.array_equal(plain.state_dict["encoder.0.weight"], ref.state_dict["encoder.0.weight"])
    assert all(a.shape == plain.outputs[k].shape for k, a in ref.outputs.items())
    assert any(not np.allclose(a, plain.outputs[k], rtol=1e-2, atol=1e-3) for k, a in ref.outputs.items())


@pytest.mark.parametrize("extra,wanted", [
    ('checkpoint_key = "gen_tst"', ["no key 'gen_tst' at the top level", "{'gen', 'gen_test'}"]),
    ("", ["the file is not a state dict", "set checkpoint_key"]),
    ('checkpoint_key = "gen_test.encoder.0.weight"', ["is a Tensor, not a state dict"]),
])
def test_bad_key_is_one_clear_error(tmp_path, extra, wanted):
    """A key the file lacks, none for a file of several state dicts, a key to a tensor: exit 2,
    the message names the spec, the key and the file (and what the file holds)."""
    ckpt = TORCH_SIDE.run() / GEN_FILE
    spec = write_spec(tmp_path, "hisd_bad", extra)
    code, out = parity(spec, tmp_path / "out", "--checkpoint", ckpt)
    assert code == 2, out[-3000:]
    assert f"{spec}: checkpoint {ckpt}" in out and "Traceback" not in out.split("full output")[0], out[-3000:]
    for text in wanted:
        assert text in out, out[-3000:]


def test_missing_checkpoint_file(tmp_path):
    """A checkpoint path that is no file: exit 2 before any torch work, naming spec and path."""
    spec = write_spec(tmp_path, "hisd_missing", 'checkpoint = "weights/nothing.pt"')
    code, out = parity(spec, tmp_path / "out")
    assert code == 2 and f"{spec}: checkpoint {tmp_path / 'weights' / 'nothing.pt'}: no such file" in out, out


def test_port_that_does_not_fit_the_file_fails_naming_keys(tmp_path):
    """The converted Gen built with a third tag: the file lacks that tag's translator and
    mappers.  The checkpoint row fails naming them (shims.load_state_dict, strict)."""
    third = TWO_TAGS + ", " + TAG.format("HairColor")
    spec = load_spec(write_spec(tmp_path, "hisd_three", f'checkpoint = "{TORCH_SIDE.run() / GEN_FILE}"\n'
                                'checkpoint_key = "gen_test"', tags=third))
    import shims  # noqa: F401  (the Jittor environment before jittor)
    from porter.prove.model import default_forward
    from porter.prove.spec import build

    model, _ = build(spec, "jittor", default_forward)
    row, weights = checkpoint.check_port(spec, model, tmp_path / "unused.npz", tmp_path / "results")
    assert not row.ok and weights is None
    assert "Missing key(s) in state_dict" in row.detail and "translators.2." in row.detail, row.detail
    assert f"checkpoint {spec.checkpoint} (checkpoint_key 'gen_test')" in row.detail


def test_checkpoint_keys_in_spec(tmp_path):
    """checkpoint is relative to the spec's folder; an empty one is refused."""
    spec = load_spec(write_spec(tmp_path, "rel", 'checkpoint = "w/g.pt"\ncheckpoint_key = "a.b"'))
    assert spec.checkpoint == tmp_path / "w" / "g.pt" and spec.checkpoint_key == "a.b"
    with pytest.raises(SpecError, match="checkpoint_key must be a non-empty string"):
        load_spec(write_spec(tmp_path, "empty", 'checkpoint_key = ""'))
