"""Converted code runs as a plain program: no torch import, ``import shims`` first, leftovers
that fail only when they run, naming themselves.

The converted file is run with ``python file.py`` in a clean environment (PATH, HOME and
PYTHONPATH only: none of the Makefile's Jittor settings), as a user runs it.
"""
import os
import sys
from pathlib import Path

from porter import convert_source
from porter.prove.processes import run_tracked

ROOT = Path(__file__).resolve().parents[1]

SOURCE = '''\
import sys

import torch
import torch.nn as nn
from torch.distributions import Normal


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.fc(x)).sum(1)


class Odd(torch.nn.Unknown):
    pass


def zeta(x):
    return torch.special.zeta(x, 2)


def sample():
    return Normal(0.0, 1.0).sample()


if __name__ == "__main__":
    torch.manual_seed(0)
    print("net", tuple(Net()(torch.ones(4, 3)).shape))
    for fn in (zeta, sample, Odd):
        try:
            fn(torch.ones(2)) if fn is zeta else fn()
        except Exception as e:
            print(type(e).__name__, "|", e)
'''


def run_plain(code: str, folder: Path, name: str = "prog.py"):
    """Write ``code`` to ``folder/name`` and run it as ``python name`` in a clean environment
    (PATH, HOME, PYTHONPATH: none of the Makefile's Jittor settings); the completed process."""
    path = folder / name
    path.write_text(code)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "PYTHONPATH": str(ROOT)}
    return run_tracked([sys.executable, path], folder, env, timeout=600)


def test_converted_file_runs_as_a_plain_program(tmp_path):
    result = convert_source(SOURCE, "prog.py")
    code = result.code
    assert "import torch" not in code and "from torch" not in code
    assert code.splitlines()[2] == "import shims", code  # before anything that imports Jittor
    assert len(result.report.unsupported) == 3, result.report.unsupported
    path = tmp_path / "prog.py"
    proc = run_plain(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("net", "Unported"))]
    assert lines[0] == "net (4,)"
    want = [("zeta", "calling torch.special.zeta", "JT001"),
            ("sample", "calling torch.distributions.Normal", "JT001"),
            ("Odd", "Odd derives from torch.nn.Unknown", "JT001")]
    assert len(lines) == 4, proc.stdout
    for line, (_where, what, code_) in zip(lines[1:], want):
        assert line.startswith("UnportedError | "), line
        assert f"{path}:" in line and what in line and code_ in line, line


def test_a_file_using_only_jittor_names_imports_shims_first(tmp_path):
    """``torch.zeros`` becomes ``jt.zeros``: no shims name is used, yet ``import shims`` must
    come first, or Jittor loads without the machine's settings (libcudart on a CUDA-less box)."""
    code = convert_source("import torch\n\nx = torch.zeros(3)\nprint('sum', float(x.sum()))\n", "zeros.py").code
    assert code.splitlines()[:2] == ["import shims", "import jittor as jt"], code
    proc = run_plain(code, tmp_path, "zeros.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "sum 0.0" in proc.stdout.splitlines()


def _converted_run(source: str, folder: Path, name: str):
    """Convert ``source``, check the output never imports torch, run it plainly; its stdout lines."""
    result = convert_source(source, name)
    assert "import torch" not in result.code and "from torch" not in result.code, result.code
    proc = run_plain(result.code, folder, name)
    assert proc.returncode == 0, result.code + "\n" + proc.stderr[-3000:]
    return result, proc.stdout.splitlines()


OPTIONAL_TORCH = '''\
try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None
    F = None


def act(x):
    if torch is None:
        raise RuntimeError("needs torch")
    return F.relu(torch.relu(x) - 1.0).sum(1)


print("act", act(torch.tensor([[1.0, 3.0], [4.0, -2.0]])).tolist())
'''


def test_an_optional_torch_import_stays_torch_for_the_code_that_uses_it(tmp_path):
    """``try: import torch / except ImportError: torch = None``: ``torch.relu(x)`` is torch's
    relu (not a method of the name ``torch``), the file imports and runs."""
    result, lines = _converted_run(OPTIONAL_TORCH, tmp_path, "optional.py")
    assert result.report.found == result.report.converted, result.report.unsupported
    assert "act [2.0, 3.0]" in lines


STAR_AND_LOOKUPS = '''\
import torch
from torch import *
from torch.nn import *
import torch.nn as nn
import torch.nn.functional as F


class Net(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(2, 2)

    def forward(self, x):
        return relu(self.fc(x))


x = tensor([-1.0, 2.0])
print("star", tuple(Net()(ones(3, 2)).shape), var(tensor([1.0, 2.0, 4.0])).item())
print("getattr", getattr(F, "leaky_relu")(x, negative_slope=0.2).tolist())
print("vars", vars(torch)["var"](tensor([1.0, 2.0, 4.0])).item())
print("layer", getattr(nn, "LeakyReLU")(0.5)(x).tolist(), getattr(nn, "ReLU")(inplace=True)(x).tolist())
'''


def test_star_imports_and_modules_as_values_convert_and_run(tmp_path):
    """Star imports become imports of the names used; ``getattr(F, name)`` / ``vars(torch)``
    reach the table's targets at run time (torch's ``negative_slope``, torch's unbiased var)."""
    result, lines = _converted_run(STAR_AND_LOOKUPS, tmp_path, "star.py")
    assert "import *" not in result.code and not result.report.unsupported, result.code
    want_var = ((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2  # unbiased
    star = [ln for ln in lines if ln.startswith("star")][0].split()
    assert star[1:3] == ["(3,", "2)"] and abs(float(star[3]) - want_var) < 1e-6, lines
    assert "getattr [-0.20000000298023224, 2.0]" in lines
    assert abs(float([ln for ln in lines if ln.startswith("vars")][0].split()[1]) - want_var) < 1e-6
    assert "layer [-0.5, 2.0] [0.0, 2.0]" in lines  # inplace= dropped by the ReLU row's policy


DATA_AND_LAYERS = '''\
import torch
import torch.nn as nn


class L(nn.Linear):
    def __init__(self, a, b, device=None, dtype=None):
        super().__init__(a, b, device=device, dtype=dtype)


net = nn.Linear(4, 3)
x = torch.ones(5, 4)
outputs = net(x)
_, predicted = torch.max(outputs.data, 1)
w = net.weight.data
print("data", tuple(predicted.shape), type(w).__name__ == type(x).__name__, w.requires_grad)
outputs.sum().backward()
before = net.weight.clone()
for p in net.parameters():
    p.data -= 0.5 * p.grad
print("step", float((before - net.weight).abs().max()), float(net.weight.grad.abs().max()))
d = nn.Linear(3, 2, dtype=torch.float64)
print("dtype", d.weight.dtype == torch.float64, L(3, 2).weight.dtype == torch.float32,
      L(3, 2, dtype=torch.float64).weight.dtype == torch.float64, tuple(L(3, 2)(torch.ones(1, 3)).shape))
try:
    print(outputs.grad_fn)
except Exception as e:
    print(type(e).__name__, "|", e)
print("hasattr", hasattr(outputs, "grad_fn"), getattr(outputs, "layout", "none"))
'''


def test_data_reads_and_layer_factory_arguments_run(tmp_path):
    """``x.data`` reads are the detached tensor (``torch.max(outputs.data, 1)`` gives indices),
    writes through ``.data`` update the parameter, torch layers' ``device=``/``dtype=`` (also
    through ``super().__init__``) are dropped / honoured, and reads of attributes the Var lacks
    are marked and raise naming themselves."""
    result, lines = _converted_run(DATA_AND_LAYERS, tmp_path, "data.py")
    assert {u.api for u in result.report.unsupported} == {"torch.Tensor.grad_fn"}
    # a marked read of an attribute the Var lacks raises naming the line and its marker; hasattr
    # and getattr with a default still work (the error is an AttributeError too)
    error = [ln for ln in lines if ln.startswith("UnportedAttributeError |")]
    assert len(error) == 1 and "data.py:" in error[0] and "JT001 torch.Tensor.grad_fn" in error[0], lines
    assert "hasattr False none" in lines
    assert "data (5,) True False" in lines
    step = [ln for ln in lines if ln.startswith("step")][0].split()
    assert abs(float(step[1]) - 0.5 * float(step[2])) < 1e-6, lines  # the weight moved by lr * grad
    assert "dtype True True True (1, 2)" in lines
