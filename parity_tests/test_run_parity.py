"""``jtport parity --run``: whole training scripts proved without their cooperation.

Every script of ``parity_tests/scripts/`` is copied to a folder of its own, converted with the
real converter, and both run through ``porter.prove.run_cmd`` (what ``jtport parity --run``
runs) with fresh ``--init/--log/--ckpt`` names: each side writes its own initial weights and
loads nothing, so the port starts from torch's weights only because the tracer loads them when
its optimizer is built (or at its first forward).  ``bn_dropout_mlp`` runs with its default
dropout (0.3): the masks agree only because the tracer shares them (torch's mask drawn with
``torch.rand``, the port's replayed by ``shims.random_torch``).

A deliberately wrong port (a test-only patch imported by a wrapper next to the converted script,
nothing in ``shims`` changes) must be located by name: a ReLU whose backward is scaled (the
gradient search names ``fc1``, whose output's gradient is the first to differ from the loss
backwards) and a Linear that drops its bias (the forward search names ``fc1``).  The HTML page is
parsed and its plot data checked against its SVG.
"""
import json
import math
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from porter import convert_path
from porter.prove import run_cmd
from porter.prove.run_compare import Trace
from porter.prove.torchside import torch_python
from porter.prove.workspace import torch_env

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "parity_tests" / "scripts"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))
STEPS = 3


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> Path:
    """``<tmp>/orig`` (the scripts) and ``<tmp>/conv`` (their conversion)."""
    base = tmp_path_factory.mktemp("runparity")
    shutil.copytree(SCRIPTS, base / "orig")
    report = convert_path(base / "orig", base / "conv")
    assert not report.errors and not report.unsupported
    write = ("import sys; from pathlib import Path; from parity_tests.torch_side.scripts import write_mnist; "
             "write_mnist(Path(sys.argv[1]))")
    subprocess.run([str(torch_python()), "-c", write, str(base / "mnist_data")],
                   check=True, env=torch_env(str(ROOT)), cwd=ROOT)
    return base


def _args(name: str, base: Path) -> list:
    """Fresh file names, written by each side in its own folder: nothing is loaded (no cooperation)."""
    data = ["--data", str(base / "mnist_data")] if name == "mnist_augment" else []
    return ["--init", f"{name}.init.pt", "--log", f"{name}.log.json", "--ckpt", f"{name}.ckpt.pt", *data]


def _run(base: Path, original: str, converted: str, name: str, out: Path, *extra) -> int:
    return run_cmd.main([str(base / "orig" / original), str(base / "conv" / converted), "--steps", str(STEPS),
                         "--out", str(out), *extra, "--", *_args(name, base)])


#: scripts whose --run comparison was run to its end and matched before this suite joined `make test`;
#: the others run under `make parity` (JTPORT_PARITY_FULL=1) until fixed.  Re-measured 2026-11-28
#: (the loader sync point and the shared dropout in place): bn_dropout_mlp MATCH (3 losses, worst
#: 1.8e-7 within 2.2e-6; 11 outputs, worst rel 2.2e-7, torch's own 4.0e-7) and mnist_augment MATCH
#: (shuffle and augmentation torch's; 3 losses, worst 2.4e-7 within 4.3e-6) joined; sine_lbfgs MATCH
#: once LBFGS's own step was counted (12 closure losses over 3 steps, worst 1.5e-7 within 2.8e-6)
VERIFIED = {"mnist_cnn", "dcgan", "fast_style", "gcn", "lstm_classifier", "siamese", "super_resolution",
            "transformer_lm", "vae", "word_lm_lstm", "bn_dropout_mlp", "mnist_augment", "sine_lbfgs"}


def _script(name):
    return pytest.param(name, id=name, marks=[] if name in VERIFIED else [pytest.mark.parity_only])


@pytest.mark.parametrize("name", [_script(n) for n in NAMES])
def test_whole_script_matches_without_cooperation(name, trees, tmp_path, capsys):
    rc = _run(trees, f"{name}.py", f"{name}.py", name, tmp_path)
    text = capsys.readouterr().out
    assert rc == 0, text
    torch, port = Trace.load(tmp_path / "torch"), Trace.load(tmp_path / "port")
    assert torch.meta["roots"] and len(torch.meta["losses"]) >= STEPS
    assert port.meta["losses"] and torch.group("act") and torch.group("param1")
    assert "verdict: MATCH" in text


def _wrong(base: Path, tag: str, patch: str) -> str:
    """A converted ``mnist_cnn`` run through a test-only patch of the port; its file name."""
    (base / "conv" / f"wrong_{tag}.py").write_text(patch)
    wrapper = f"run_{tag}.py"
    (base / "conv" / wrapper).write_text(
        f"import runpy\nfrom pathlib import Path\nimport wrong_{tag}  # noqa: F401\n"
        "runpy.run_path(str(Path(__file__).with_name('mnist_cnn.py')), run_name='__main__')\n")
    return wrapper


SCALED_BACKWARD = """
import jittor as jt
from jittor import nn

_relu = nn.relu


class _Scaled(jt.Function):
    def execute(self, x):
        return x

    def grad(self, g):
        return g * 2.0


def relu(x):
    return _Scaled()(_relu(x))


nn.relu = relu
"""

DROPPED_BIAS = """
from jittor import nn

_execute = nn.Linear.execute


def execute(self, x):
    if self.bias is None or self.in_features != 128:
        return _execute(self, x)
    return x @ self.weight.transpose()


nn.Linear.execute = execute
"""


def test_scaled_backward_is_located(trees, tmp_path, capsys):
    rc = _run(trees, "mnist_cnn.py", _wrong(trees, "scaled", SCALED_BACKWARD), "mnist_cnn", tmp_path,
              "--html", str(tmp_path / "r.html"))
    text = capsys.readouterr().out
    assert rc == 1, text
    assert "first diverging gradient (backward, first step, from the loss backwards): 0:fc1@0 (Linear" in text, text
    line = (SCRIPTS / "mnist_cnn.py").read_text().splitlines().index("class Net(nn.Module):") + 1
    assert f"attribute fc1 of Net at {trees / 'orig' / 'mnist_cnn.py'}:{line}" in text, text
    assert "first diverging module output" not in text  # the forward matches


def test_dropped_bias_is_located(trees, tmp_path, capsys):
    """Also with every first-step output over 100 elements kept as a strided sample (``--sample``:
    what keeps a full-size network's trace small): the same elements on both sides, still found."""
    page = tmp_path / "r.html"
    rc = _run(trees, "mnist_cnn.py", _wrong(trees, "bias", DROPPED_BIAS), "mnist_cnn", tmp_path, "--html", str(page),
              "--sample", "100")
    text = capsys.readouterr().out
    assert rc == 1, text
    for side in ("torch", "port", "spread1"):
        trace = Trace.load(tmp_path / side)
        assert max(a.size for a in trace.group("act").values()) <= 100
        assert any("every k-th element" in n for n in trace.meta["notes"])
    assert "first differing loss: backward call 1 (step 1)" in text
    assert "first diverging module output (forward, first step): 0:fc1@0 (Linear" in text, text
    data = _plot(page)
    assert data["verdict"] == "different"
    bad = [m["call"] for m in data["modules"] if not m["ok"]]
    assert bad[0] == "0:fc1@0"
    assert [m["call"] for m in data["modules"]][:2] == ["0:conv1@0", "0:conv2@0"]


class _Page(HTMLParser):
    """The page's plot elements and its JSON data."""

    def __init__(self):
        super().__init__()
        self.svgs, self.polylines, self.rects, self.data, self._in_data = {}, {}, [], None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs[a["id"]] = a
        elif tag == "polyline":
            self.polylines[a["class"]] = [tuple(map(float, p.split(","))) for p in a["points"].split()]
        elif tag == "rect":
            self.rects.append(a)
        elif tag == "script" and a.get("id") == "plot-data":
            self._in_data = True
        assert tag not in ("img", "link", "iframe") and not str(a.get("src", "")).startswith("http")

    def handle_data(self, data):
        if self._in_data:
            self.data = json.loads(data)
            self._in_data = False


def _plot(page: Path) -> dict:
    p = _Page()
    p.feed(page.read_text())
    return {**p.data, "_parser": p}


def test_html_plots_what_was_measured(trees, tmp_path, capsys):
    page = tmp_path / "r.html"
    assert _run(trees, "mnist_cnn.py", "mnist_cnn.py", "mnist_cnn", tmp_path, "--html", str(page)) == 0
    capsys.readouterr()
    data = _plot(page)
    p = data.pop("_parser")
    torch = Trace.load(tmp_path / "torch")
    assert data["verdict"] == "match" and data["torch_losses"] == torch.meta["losses"]
    # the loss curves: one point per backward call, heights in the order of the losses
    lo, hi = float(p.svgs["loss-plot"]["data-lo"]), float(p.svgs["loss-plot"]["data-hi"])
    for side in ("torch", "port"):
        pts, losses = p.polylines[side], data[f"{side}_losses"]
        assert len(pts) == len(losses) == STEPS
        for (_, y), v in zip(pts, losses):
            assert math.isclose(y, 300 - 48 - (300 - 96) * (v - lo) / (hi - lo), abs_tol=0.02)
    # module bars: the port's and torch's own error per first-step output, in call order
    calls = [m["call"] for m in data["modules"]]
    assert calls == [c for c in torch.meta["act_order"]]
    port_bars = [r for r in p.rects if r["class"] == "port"]
    own_bars = [r for r in p.rects if r["class"] == "own"]
    assert [r["data-call"] for r in port_bars] == calls == [r["data-call"] for r in own_bars]
    for r, m in zip(port_bars + own_bars, data["modules"] * 2):
        assert float(r["data-value"]) == pytest.approx(m["port_rel" if r["class"] == "port" else "torch_own_rel"])
    assert all(0 < m["torch_own_rel"] < 1e-4 for m in data["modules"])  # one rounding of the weights moves each


def test_side_failure_exits_2_with_its_traceback(trees, tmp_path, capsys):
    (trees / "conv" / "broken.py").write_text("import shims\nraise ValueError('the port is broken here')\n")
    (trees / "orig" / "broken.py").write_text("import torch\n")
    rc = run_cmd.main([str(trees / "orig" / "broken.py"), str(trees / "conv" / "broken.py"), "--steps", "1",
                       "--out", str(tmp_path), "--spread-runs", "0"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "the jittor side failed" in err and "ValueError: the port is broken here" in err and "broken.py" in err


def test_usage_errors_exit_2(tmp_path, capsys):
    assert run_cmd.main([str(tmp_path / "absent.py"), str(tmp_path / "absent2.py")]) == 2
    assert "no such script" in capsys.readouterr().err


def test_an_optimizer_with_its_own_step_counts_once_per_call():
    """The port's steps are counted on the ``step`` of every optimizer class built, as torch's step
    hooks count them: a class with its own ``step`` (``shims.optim.LBFGS``: ``sine_lbfgs`` never
    ended a step before) counts, and a ``step`` calling ``super().step()`` counts once."""
    import jittor as jt
    import shims
    from porter.prove.run_trace_jittor import _count_steps

    class Counter:
        def __init__(self):
            self.steps = []

        def on_step(self, opt):
            self.steps.append(opt)

    class Own(shims.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    class Nested(Own):
        def step(self, closure=None):
            return super().step(closure)

    tracer = Counter()
    for cls in (Nested, Own):  # the classes of the MRO defining step, the base's left as it is here
        _count_steps(cls, tracer)
    w = jt.ones(2)
    opt = Nested([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    opt.step(closure)
    assert tracer.steps == [opt, opt]
    np.testing.assert_allclose(w.numpy(), [0.64, 0.64], rtol=1e-6)


def test_torch_random_state_is_replayed(tmp_path):
    """The port's replayed stream continues from torch's ``get_rng_state()`` bytes (the state the
    tracer hands over at a capture), mid-block and right after a seed."""
    from shims import random_torch
    from porter.prove.run_trace_jittor import set_torch_state

    code = ("import sys, torch, numpy as np\ntorch.manual_seed(int(sys.argv[1])); torch.rand(int(sys.argv[2]))\n"
            "s = torch.get_rng_state().numpy(); np.save(sys.argv[3], s)\n"
            "np.save(sys.argv[4], torch.rand(7).numpy())\n")
    for seed, drawn in ((3, 5), (11, 0), (5, 700)):
        with_state, values = tmp_path / f"s{seed}.npy", tmp_path / f"v{seed}.npy"
        subprocess.run([str(torch_python()), "-c", code, str(seed), str(drawn), str(with_state), str(values)],
                       check=True, env=torch_env(str(ROOT)))
        gen = random_torch.Generator()
        set_torch_state(gen, np.load(with_state))
        assert np.array_equal(random_torch.rand(7, gen), np.load(values)), (seed, drawn)
        assert gen.initial_seed() == seed


def test_integer_draws_are_replayed(tmp_path):
    """``torch.randint`` (both forms) and ``torch.randperm`` made by the script: the port's
    ``shims.randint``/``jt.randperm``, replayed from torch's state before the draw, are torch's."""
    from porter.prove.run_trace_jittor import _randint, _randperm, set_torch_state
    from shims import random_torch

    code = ("import sys, torch, numpy as np\ntorch.manual_seed(7); torch.rand(3)\n"
            "np.save(sys.argv[1], torch.get_rng_state().numpy())\n"
            "np.save(sys.argv[2], torch.randint(1000, (4, 3)).numpy())\n"
            "np.save(sys.argv[3], torch.randint(5, 40, (6,)).numpy())\n"
            "np.save(sys.argv[4], torch.randperm(11).numpy())\n")
    files = [tmp_path / f"{k}.npy" for k in ("state", "a", "b", "perm")]
    subprocess.run([str(torch_python()), "-c", code, *map(str, files)], check=True, env=torch_env(str(ROOT)))
    set_torch_state(random_torch.default_generator, np.load(files[0]))
    a, b, perm = _randint(1000, (4, 3)), _randint(5, 40, (6,)), _randperm(11)
    assert a.dtype == "int32" and np.array_equal(a.numpy(), np.load(files[1]))
    assert np.array_equal(b.numpy(), np.load(files[2]))
    assert np.array_equal(perm.numpy(), np.load(files[3]))


PACKAGE_MODEL = '''import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
'''
PACKAGE_TRAIN = '''import torch
from pkg.model import Net

torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 2)
for step in range(3):
    opt.zero_grad()
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
'''


def test_a_script_importing_its_own_package_runs_from_its_project_root(tmp_path, capsys):
    """``--project-root ..``: each side imports its own copy of the project's package (pygcn's
    ``train.py`` imports ``pygcn.utils``); without it the script's folder alone is on the path."""
    (tmp_path / "orig" / "pkg").mkdir(parents=True)
    (tmp_path / "orig" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "orig" / "pkg" / "model.py").write_text(PACKAGE_MODEL)
    (tmp_path / "orig" / "pkg" / "train.py").write_text(PACKAGE_TRAIN)
    report = convert_path(tmp_path / "orig", tmp_path / "conv")
    assert not report.errors and not report.unsupported
    scripts = [str(tmp_path / side / "pkg" / "train.py") for side in ("orig", "conv")]
    assert run_cmd.main([*scripts, "--steps", "3", "--spread-runs", "1", "--out", str(tmp_path / "bare")]) == 2
    assert "No module named 'pkg'" in capsys.readouterr().err
    rc = run_cmd.main([*scripts, "--steps", "3", "--spread-runs", "1", "--out", str(tmp_path / "run"),
                       "--project-root", ".."])
    text = capsys.readouterr().out
    assert rc == 0 and "verdict: MATCH" in text, text
    assert len(Trace.load(tmp_path / "run" / "port").meta["losses"]) == 3
