"""Self-test of the model-parity harness: a tiny torch model (``torch_side/harness_selftest.py``) and
a hand-written Jittor twin.  The faithful twin must match forward, gradients and optimizer
steps; deliberately perturbed twins must fail, and the harness must name the perturbed layer
as the first diverging submodule (not an earlier one, not a later one)."""
from pathlib import Path

import numpy as np
import pytest

import jittor as jt
from jittor import nn

from porter.prove import results
from porter.prove.background import Background, marked_jobs
from porter.prove.divergence import ActivationTap
from porter.prove.model import ModelParity
from porter.prove.reference import Reference, load_weights
from porter.prove.torchside import TorchSide
from porter.prove.summary import summary

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "porter" / "prove"
SUITE = "harness_selftest"
TORCH_SIDE = TorchSide(HERE / "torch_side" / "harness_selftest.py", SUITE,
                       (HARNESS / "torch_side" / "torch_dump.py", HARNESS / "common.py"))
# Tiny float32 network, errors are at the float32 rounding level (~1e-7 relative per op);
# 1e-5 relative leaves margin for a few ops and a 2-step SGD trajectory.
RTOL, ATOL = 1e-5, 1e-6
OPTIMIZER = {"name": "sgd", "lr": 0.05, "momentum": 0.9}  # same as harness_selftest.OPTIMIZER


@pytest.fixture(scope="module")
def ref() -> Reference:
    return Reference(TORCH_SIDE.run() / "tiny.npz")


class Tiny(nn.Module):
    """Jittor twin of ``harness_selftest.Tiny``; ``slope`` and ``body_gain`` perturb it."""

    def __init__(self, slope=0.2, body_gain=1.0, act_grad_gain=1.0):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.act = nn.ReLU()
        act = nn.LeakyReLU(slope) if act_grad_gain == 1.0 else WrongGradLeakyReLU(slope, act_grad_gain)
        self.body = nn.Sequential(ScaledConv(4, 4, 3, padding=1, gain=body_gain), act)
        self.head = nn.Linear(4 * 4 * 4, 5)

    def execute(self, x):
        h = self.act(self.stem(x))
        h = self.act(self.body(h) + h)
        return self.head(h.flatten(1)), h.mean()


class ScaledConv(nn.Conv2d):
    """A Conv2d whose weight is multiplied by ``gain`` when it runs (1.0: a plain Conv2d)."""

    def __init__(self, *args, gain=1.0, **kw):
        super().__init__(*args, **kw)
        self._gain = gain

    def execute(self, x):
        return nn.conv2d(x, self.weight * self._gain, self.bias, self.stride, self.padding)


class _ScaledBackward(jt.Function):
    def __init__(self, gain):
        self.gain = gain

    def execute(self, x):
        return x

    def grad(self, g):
        return g * self.gain


class WrongGradLeakyReLU(nn.Module):
    """LeakyReLU with torch's forward and a backward scaled by ``gain`` (a wrong backward)."""

    def __init__(self, slope, gain):
        super().__init__()
        self.slope, self.gain = slope, gain

    def execute(self, x):
        return nn.leaky_relu(_ScaledBackward(self.gain)(x), self.slope)


def test_faithful_twin_matches_forward_grads_and_steps(ref):
    p = ModelParity(SUITE, ref, Tiny())
    fwd = p.check_forward("faithful/forward", RTOL, ATOL)
    assert fwd.ok, fwd.detail
    grads = p.check_grads("faithful/grads", RTOL, ATOL)
    assert grads.ok, grads.detail
    steps = p.check_steps("faithful/steps", OPTIMIZER, RTOL, ATOL)
    assert steps.ok, steps.detail
    assert p.diagnose(RTOL, ATOL) is None


def test_changed_weight_is_named_as_first_divergence(ref, tmp_path):
    # Deliberately failing cases: their rows go to a scratch folder, not to make parity's summary.
    p = ModelParity(SUITE, ref, Tiny(body_gain=1.01), results=tmp_path)
    row = p.check_forward("perturbed_weight/forward", RTOL, ATOL)
    assert not row.ok
    assert row.first_diverging == "body.0@0", row.detail
    assert "body.0@0" in row.detail and "(2, 4, 4, 4)" in row.detail
    assert results.load_all(tmp_path)[SUITE][0].status == "failed"


def test_changed_activation_is_named_and_grads_fail_too(ref, tmp_path):
    p = ModelParity(SUITE, ref, Tiny(slope=0.1), results=tmp_path)
    row = p.check_grads("perturbed_activation/grads", RTOL, ATOL)
    assert not row.ok
    assert row.first_diverging == "body.1@0", row.detail
    assert p.check_forward("perturbed_activation/forward", RTOL, ATOL).first_diverging == "body.1@0"


def test_wrong_backward_is_located_by_the_gradient_search(ref, tmp_path):
    p = ModelParity(SUITE, ref, Tiny(act_grad_gain=1.1), results=tmp_path)
    assert p.check_forward("wrong_backward/forward", RTOL, ATOL).ok
    row = p.check_grads("wrong_backward/grads", RTOL, ATOL)
    assert not row.ok and "only gradients differ" in row.detail
    # body.1's backward is wrong: body.1's own output gradient still matches, body.0's does not.
    assert row.first_diverging == "body.0@0", row.detail
    assert "gradient (from the loss backwards)" in row.detail and "body.1@0" in row.detail
    assert p.diagnose_gradients(RTOL, ATOL) is not None
    assert ModelParity(SUITE, ref, Tiny()).diagnose_gradients(RTOL, ATOL) is None


def test_tap_records_calls_in_torch_order_and_restores_modules(ref):
    model = Tiny()
    load_weights(model, ref.state_dict)
    with ActivationTap(model) as tap:
        model(jt.array(ref.inputs["x"]))
    assert [k for k, _ in tap.records] == ref.act_order
    assert all("execute" not in m.__dict__ for _, m in model.named_modules())


def test_strict_loading_rejects_missing_and_misshaped_keys(ref):
    state = dict(ref.state_dict)
    del state["head.bias"]
    with pytest.raises(Exception, match="head.bias"):
        load_weights(Tiny(), state)
    state = dict(ref.state_dict)
    state["stem.weight"] = np.zeros((4, 3, 1, 1), np.float32)
    with pytest.raises(Exception, match="stem.weight"):
        load_weights(Tiny(), state)


def test_summary_lists_failures_with_first_diverging(tmp_path):
    results.record(results.Row("s", "ok", "passed", 1e-7, 2e-7), results=tmp_path)
    results.record(results.Row("s", "bad", "failed", 0.5, 0.25, "net.conv@0", "worst: x"), results=tmp_path)
    results.record(results.Row("s", "bad", "failed", 0.4, 0.2, "net.conv@1", "rerun replaces"), results=tmp_path)
    text = summary(results.load_all(tmp_path))
    line = [ln for ln in text.splitlines() if ln.startswith("s ")][0].split()
    assert line[:5] == ["s", "2", "1", "1", "0"]
    assert "4.00e-01" in line and "net.conv@1" in text and "net.conv@0" not in text


def test_ported_package_comes_from_the_conversion():
    from porter.prove.ported import PORTED, conversion_report, import_ported

    pkg = import_ported("models_ref")
    assert Path(pkg.__file__).resolve().is_relative_to(PORTED)
    assert any(f["path"].endswith("__init__.py") for f in conversion_report()["files"])
    with pytest.raises(ValueError, match="not inside models_ref"):
        import_ported("os")


def test_xfailed_tests_rows_are_relabelled(tmp_path):
    results.record(results.Row("s", "a", "failed", test="t::x"), results=tmp_path)
    results.record(results.Row("s", "b", "passed", test="t::y"), results=tmp_path)
    assert results.mark_test("t::x", "xfail", "known gap: because", results=tmp_path) == 1
    rows = {r.case: r for r in results.load_all(tmp_path)["s"]}
    assert rows["a"].status == "xfail" and rows["a"].detail.startswith("known gap: because")
    assert rows["b"].status == "passed"


def test_ported_main_runs_only_converted_modules():
    from porter.prove.ported import run_ported_main

    with pytest.raises(ValueError, match="not inside models_ref"):
        run_ported_main("json.tool", [])


def test_background_job_runs_once_and_reraises_in_the_waiting_test():
    import threading

    calls = []
    gate = threading.Event()

    def work():
        gate.wait(10)
        calls.append(1)
        return len(calls)

    job = Background("selftest-once", work)
    first, second = job.start(), job.start()
    assert first is second and not first.done()
    gate.set()
    assert job.result(timeout=10) == 1 and job.result(timeout=10) == 1 and calls == [1]

    def fail():
        raise RuntimeError("the job's own error")

    with pytest.raises(RuntimeError, match="the job's own error"):
        Background("selftest-fails", fail).result(timeout=10)


def test_marked_jobs_are_found_once_in_test_order():
    class Item:
        def __init__(self, nodeid, *marks):
            self.nodeid, self.marks = nodeid, [pytest.mark.background(*m).mark for m in marks]

        def iter_markers(self, name):
            return [m for m in self.marks if m.name == name]

    a, b = Background("selftest-a", int), Background("selftest-b", int)
    assert marked_jobs([Item("t1", (b,)), Item("t2"), Item("t3", (a, b))]) == [b, a]
    with pytest.raises(TypeError, match="t4: pytest.mark.background takes Background jobs"):
        marked_jobs([Item("t4", ("mccnet_train",))])


def test_tracked_child_is_stopped_at_its_timeout_without_taking_jittor_down(tmp_path):
    import subprocess
    import sys

    from porter.prove import processes

    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run_tracked(sleeper, tmp_path, {}, timeout=0.5)
    # (background jobs of the session may be tracked meanwhile)
    assert not [p for p in processes._RUNNING if p.args[-len(sleeper):] == sleeper]
    # a child that dies by SIGKILL is reported as an exit status; this Jittor process lives on
    import jittor  # noqa: F401  (its SIGCHLD handler is what the shield is for)
    killed = processes.run_tracked([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
                                   tmp_path, {}, timeout=30)
    assert killed.returncode == 128 + 9
    done = processes.run_tracked([sys.executable, "-c", "print('hi')"], tmp_path, {}, timeout=30)
    assert (done.returncode, done.stdout) == (0, "hi\n")
