"""End to end, as `make demo` does it: convert the example project, train the converted CNN
under Jittor, and load the checkpoint it writes back into the torch model (in .venv-torch)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from porter import convert_path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo_project"
TORCH_PY = ROOT / ".venv-torch" / "bin" / "python"


def test_demo_converts_fully_trains_and_round_trips(tmp_path):
    out = tmp_path / "demo_jittor"
    report = convert_path(DEMO, out, jobs=1)
    assert report.errors == [] and report.unsupported == [], report.to_markdown()
    assert report.converted == report.found > 0
    for f in out.glob("*.py"):
        assert "import torch" not in f.read_text()

    run = subprocess.run([sys.executable, "-c", "import train; train.main(epochs=3)"], cwd=out,
                         capture_output=True, text=True, timeout=1200, env=os.environ.copy())
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    losses = [float(x) for x in re.findall(r"mean loss ([0-9.]+)", run.stdout)]
    assert len(losses) == 3 and losses[2] < 0.5 * losses[0], run.stdout
    ckpt = out / "demo_model.pth"
    assert ckpt.exists()

    if not TORCH_PY.exists():
        pytest.skip(".venv-torch is missing (make test builds it)")
    check = ("import sys, torch; sys.path.insert(0, %r); from model import SmallCNN; "
             "sd = torch.load(%r, weights_only=True); m = SmallCNN(); m.load_state_dict(sd, strict=True); "
             "print('loaded', len(sd))" % (str(DEMO), str(ckpt)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    loaded = subprocess.run([str(TORCH_PY), "-c", check], capture_output=True, text=True, timeout=300, env=env)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert loaded.stdout.startswith("loaded")
