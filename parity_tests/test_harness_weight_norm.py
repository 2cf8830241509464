"""``jtport parity`` on a model with ``torch.nn.utils.weight_norm`` (NeuS's SDF and colour
networks): such a module keeps its ``weight`` as a non-leaf tensor attribute, which
``copy.deepcopy`` refuses, and the float64 reference (a copy of the model run in double) used
to be skipped for it, leaving every row judged by rtol/atol only.  The rows must carry the
comparison with torch's own float32 error again."""

from pathlib import Path

from porter import convert_path
from porter.prove.command import main

MODEL = '''
import torch
from torch import nn


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin0 = nn.utils.weight_norm(nn.Linear(3, 16))
        self.lin1 = nn.utils.weight_norm(nn.Linear(16, 1))

    def forward(self, x):
        return self.lin1(torch.nn.functional.softplus(self.lin0(x), beta=100))
'''

SPEC = '''
factory = "field:Field"
torch_root = "src"
jittor_root = "src_jittor"
rtol = 1e-5
atol = 1e-6

[inputs]
x = [64, 3]

[train]
steps = 2
optimizer = { name = "adam", lr = 1e-3 }
'''


def test_weight_norm_model_is_judged_against_float64(tmp_path: Path, capsys):
    """Forward and gradient rows of a weight-normed model say how far the port's float32 error
    is from torch's own (the float64 copy was made), and pass."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "field.py").write_text(MODEL)
    report = convert_path(tmp_path / "src", tmp_path / "src_jittor")
    assert not report.unsupported and not report.errors
    spec = tmp_path / "field.toml"
    spec.write_text(SPEC)
    assert main([str(spec), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "ok   forward" in out and "ok   grads" in out and "ok   steps" in out, out
    assert "float32 error at most" in out.split("ok   grads", 1)[1].split("\n", 2)[1], out
