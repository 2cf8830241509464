"""Converted code runs as a plain program: no torch import, ``import shims`` first, leftovers
that fail only when they run, naming themselves.

The converted file is run with ``python file.py`` in a clean environment (PATH, HOME and
PYTHONPATH only: none of the Makefile's Jittor settings), as a user runs it.
"""
import os
import sys
from pathlib import Path

from porter import convert_source
from porter.parity.processes import run_tracked

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


def test_converted_file_runs_as_a_plain_program(tmp_path):
    result = convert_source(SOURCE, "prog.py")
    code = result.code
    assert "import torch" not in code and "from torch" not in code
    assert code.splitlines()[2] == "import shims", code  # before anything that imports Jittor
    assert len(result.report.unsupported) == 3, result.report.unsupported
    path = tmp_path / "prog.py"
    path.write_text(code)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "PYTHONPATH": str(ROOT)}
    proc = run_tracked([sys.executable, path], tmp_path, env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("net", "Unported"))]
    assert lines[0] == "net (4,)"
    want = [("zeta", "calling torch.special.zeta", "JT001"),
            ("sample", "calling torch.distributions.Normal", "JT001"),
            ("Odd", "Odd derives from torch.nn.Unknown", "JT001")]
    assert len(lines) == 4, proc.stdout
    for line, (where, what, code_) in zip(lines[1:], want):
        assert line.startswith("UnportedError | "), line
        assert f"{path}:" in line and what in line and code_ in line, line
