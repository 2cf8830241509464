"""Whole models through ``torch.save(model)`` / ``torch.load(path, weights_only=False)`` in a
converted project: the same script, run by torch and converted unmodified under Jittor, saves
its model, loads it back only with the explicit trust flag (the default refuses, in torch 2.6+
as in ``shims.load``) and gets the same outputs."""
import subprocess
import sys
import textwrap

import numpy as np

from porter import convert_path
from porter.prove.torchside import torch_python

MODEL = textwrap.dedent("""
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
            self.head = nn.Linear(4, 2)
            self.norm = nn.BatchNorm1d(4)

        def forward(self, x):
            return self.head(self.norm(self.body(x)))
""")

TRAIN = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    from model import Net

    out_dir = sys.argv[1]
    model = Net()
    rng = np.random.default_rng(0)
    state = {k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
             for k, v in model.state_dict().items() if v.dtype == torch.float32}
    model.load_state_dict(state, strict=False)
    x = torch.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    model.train()
    model(x)  # one training-mode pass: BatchNorm's running statistics move
    model.eval()
    want = model(x)
    path = out_dir + "/model.pt"
    torch.save(model, path)
    try:
        torch.load(path)
        refused = False
    except Exception:
        refused = True
    loaded = torch.load(path, weights_only=False)
    got = loaded(x)
    np.save(out_dir + "/out.npy", np.stack([want.detach().numpy(), got.detach().numpy()]))
    np.save(out_dir + "/flags.npy", np.array([refused, loaded.training, type(loaded).__name__ == "Net"]))
""")


def _run(python, project, out_dir):
    out_dir.mkdir()
    subprocess.run([str(python), "train.py", str(out_dir)], cwd=project, check=True, capture_output=True,
                   text=True, timeout=600)
    return np.load(out_dir / "out.npy"), np.load(out_dir / "flags.npy")


def test_whole_model_save_and_trusted_load_match_torch(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "model.py").write_text(MODEL)
    (src / "train.py").write_text(TRAIN)
    want_out, want_flags = _run(torch_python(), src, tmp_path / "torch")
    convert_path(src, tmp_path / "proj_jt")
    for f in (tmp_path / "proj_jt").glob("*.py"):
        assert "jtport:" not in f.read_text(), f"{f.name} has a marker: converted code must run unmodified"
    got_out, got_flags = _run(sys.executable, tmp_path / "proj_jt", tmp_path / "jittor")
    np.testing.assert_array_equal(got_flags, want_flags)
    assert want_flags.tolist() == [True, False, True]
    # float32 matmuls of <= 4 terms and a batch norm, in a different order
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_out[0], got_out[1])


def test_whole_model_of_a_local_class_is_refused_naming_it(tmp_path):
    import jittor as jt
    import pytest

    import shims

    class Local(jt.nn.Module):
        def execute(self, x):
            return x

    with pytest.raises(TypeError, match="Local, defined inside a function"):
        shims.save({"model": Local()}, tmp_path / "m.pt")
    assert not (tmp_path / "m.pt").exists()
