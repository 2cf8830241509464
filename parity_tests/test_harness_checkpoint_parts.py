"""A spec's ``checkpoint`` given per part: projects that save their networks in separate files.

MCCNet ships ``vgg_normalised.pth`` (the VGG the encoders are cut from), ``decoder_iter_N.pth``
and ``mcc_module_iter_N.pth``; its test script loads each into its own module.  The spec builds
``Net(vgg, decoder)`` on ``models_ref.mccnet`` and its conversion and names a file per part:
a factory argument (``"@models_ref.mccnet.net:vgg"``) or a submodule of the built model
(``decoder``, ``mcc_module``).  Both sides load each file into its part, strictly; the
``checkpoint`` row compares the whole loaded model exactly.  The files are written by
``torch_side/mccnet_checkpoint.py`` with weights moved off the seeded init.
"""
from pathlib import Path

import numpy as np
import pytest

from porter.prove import checkpoint
from porter.prove.processes import run_module
from porter.prove.spec import SpecError, load_spec, with_roots
from porter.prove.torchside import ROOT, TorchSide
from porter.prove.ported import PORTED, import_ported

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "mccnet_checkpoint.py", "mccnet_checkpoint",
                       (ROOT / "models_ref" / "mccnet", ROOT / "porter" / "prove" / "torch_side" / "torch_dump.py"))
NET = "models_ref.mccnet.net"

SPEC = f'''
factory = "{NET}:Net"
factory_args = ["@{NET}:vgg", "@{NET}:decoder"]
torch_root = "{{torch_root}}"
jittor_root = "{{jittor_root}}"
{{extra}}
seed = 0
rtol = 1e-4
atol = 1e-6
shared_random = true

[inputs]
content = {{{{ shape = [1, 3, 32, 32], dist = "uniform" }}}}
style = {{{{ shape = [1, 3, 32, 32], dist = "uniform" }}}}
'''


def write_spec(folder: Path, name: str, extra: str = "") -> Path:
    """A spec on models_ref (torch) and build/ported (its conversion)."""
    import_ported(NET)  # converts models_ref into build/ported
    path = folder / f"{name}.toml"
    path.write_text(SPEC.format(torch_root=ROOT, jittor_root=PORTED, extra=extra))
    return path


def files() -> dict:
    """The torch side's three files by part."""
    out = TORCH_SIDE.run()
    return {f"@{NET}:vgg": out / "vgg_normalised.pth", "decoder": out / "decoder_iter_3.pth",
            "mcc_module": out / "mcc_module_iter_3.pth"}


def test_each_part_loads_its_file_and_the_port_matches(tmp_path):
    """Three files, three parts, given as ``--checkpoint PART=FILE``: exit 0, the checkpoint row
    names each file with its part; torch's weights are the files' (the encoders' too, cut from
    the VGG the file loaded into), not the seeded build's."""
    import shims
    from porter.prove.reference import Reference

    spec = write_spec(tmp_path, "mcc_parts")
    args = [a for part, f in files().items() for a in ("--checkpoint", f"{part}={f}")]
    proc = run_module("porter.cli", ["parity", spec, "--out", tmp_path / "out", *args], ROOT, tmp_path,
                      timeout=1800)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    for case in ("checkpoint", "forward", "grads"):
        assert f"ok   {case}" in out, out
    for part, f in files().items():
        assert f"{f} -> {part}" in out, out

    ref = Reference(tmp_path / "out" / "reference.npz").state_dict
    decoder = shims.load(str(files()["decoder"]), to="numpy")
    vgg = shims.load(str(files()[f"@{NET}:vgg"]), to="numpy")
    assert all(np.array_equal(ref[f"decoder.{k}"], v) for k, v in decoder.items())
    # Net's enc_1 holds the VGG's first four layers (its Conv2d at index 2 is vgg.2)
    assert np.array_equal(ref["enc_1.2.weight"], vgg["2.weight"])
    assert np.array_equal(ref["enc_2.1.weight"], vgg["5.weight"])


def test_a_file_in_the_wrong_part_fails_naming_it(tmp_path):
    """The decoder's file given for the MCC module: the checkpoint row fails, naming the file,
    its part and the keys that do not fit."""
    import shims  # noqa: F401  (the Jittor environment before jittor)
    from porter.prove.model import default_forward
    from porter.prove.random_patches import shared_random
    from porter.prove.spec import build

    spec = with_roots(load_spec(write_spec(tmp_path, "mcc_swapped")),
                      checkpoint=[f"mcc_module={files()['decoder']}"])
    model, _ = build(spec, "jittor", default_forward, shared_random)
    row, weights = checkpoint.check_port(spec, model, tmp_path / "unused.npz", tmp_path / "results")
    assert not row.ok and weights is None
    assert f"checkpoint {files()['decoder']} -> mcc_module" in row.detail, row.detail
    assert "Missing key(s) in state_dict" in row.detail and "Unexpected key(s)" in row.detail, row.detail


def test_a_part_the_model_lacks_is_one_clear_error(tmp_path):
    """A part that is no submodule of the built model: a SpecError naming the spec and the part."""
    import shims  # noqa: F401
    from porter.prove.model import default_forward
    from porter.prove.random_patches import shared_random
    from porter.prove.spec import build

    spec = load_spec(write_spec(tmp_path, "mcc_typo", f'checkpoint = {{ decodr = "{files()["decoder"]}" }}'))
    model, _ = build(spec, "jittor", default_forward, shared_random)
    with pytest.raises(SpecError, match=r"checkpoint part 'decodr': the jittor model Net has no submodule"):
        checkpoint.load_port(spec, model)


def test_checkpoint_parts_in_spec_and_on_the_command_line(tmp_path):
    """A table of parts is read relative to the spec's folder; malformed parts and files are
    refused naming the spec; --checkpoint values replace the spec's files, at most one of them
    for the whole model."""
    spec = load_spec(write_spec(tmp_path, "rel", 'checkpoint = { decoder = "w/d.pth", "@net:vgg" = "v.pth" }'))
    assert spec.checkpoint is None
    assert [(c.part, c.file) for c in spec.checkpoints] == [("decoder", tmp_path / "w" / "d.pth"),
                                                            ("@net:vgg", tmp_path / "v.pth")]
    for bad, message in (('{ "a b" = "x.pth" }', "checkpoint part 'a b' must be"),
                         ('{ decoder = "" }', "checkpoint.decoder must be a non-empty file name"),
                         ("{}", "must name at least one part"), ("3", "must be a non-empty string or a table")):
        with pytest.raises(SpecError, match=message):
            load_spec(write_spec(tmp_path, "bad", f"checkpoint = {bad}"))
    given = with_roots(spec, checkpoint=["whole.pt", "mcc_module=m.pth"])
    assert [(c.part, c.file.name) for c in given.checkpoints] == [("", "whole.pt"), ("mcc_module", "m.pth")]
    with pytest.raises(SpecError, match="names 2 files for the whole model"):
        with_roots(spec, checkpoint=["a.pt", "b.pt"])
