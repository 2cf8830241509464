"""Jittor's SIGCHLD and SIGINT handlers are undone by ``import shims`` (shims.process_signals):
a killed child and Ctrl-C behave as under torch.  Each check runs in a fresh interpreter, with
bare ``import jittor`` as the control that shows the trap is real."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# the three behaviours torch code relies on, printed as it reaches each
# Python raises KeyboardInterrupt on SIGINT unless it started with SIGINT ignored (a background
# job of a non-interactive shell, as CI may run us): the script asks for Python's usual handler
# first, which is what Jittor's import replaced and shims must restore
_SCRIPT = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
import {first}
import os, signal, subprocess, sys
try:
    subprocess.run([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
except subprocess.TimeoutExpired:
    print("check: timeout raised", flush=True)
child = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
print("check: killed child", child.wait(), flush=True)
try:
    os.kill(os.getpid(), signal.SIGINT)
    signal.sigtimedwait([], 0.1) if hasattr(signal, "sigtimedwait") else None
    for _ in range(1000):
        pass
except KeyboardInterrupt:
    print("check: KeyboardInterrupt", flush=True)
print("check: end", flush=True)
"""


def _run(first: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", _SCRIPT.format(first=first)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("first", ["shims", "shims, jittor"])
def test_killed_child_and_ctrl_c_as_under_torch(first):
    """After ``import shims`` (Jittor imported or not again after it): ``TimeoutExpired`` on a
    timed-out child, a SIGKILLed child's status -9, ``KeyboardInterrupt`` on SIGINT."""
    proc = _run(first)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # only the script's own lines: Jittor may print its compilation progress on a cold cache
    checks = [line for line in proc.stdout.splitlines() if line.startswith("check: ")]
    want = ("timeout raised", "killed child -9", "KeyboardInterrupt", "end")
    assert checks == [f"check: {c}" for c in want], proc.stdout


def test_bare_jittor_exits_on_a_killed_child():
    """The control: plain Jittor quick-exits (status 1) when its timed-out child is killed, the
    trap that ``shims`` undoes; if Jittor ever stops doing this, the shim can go."""
    proc = _run("jittor")
    assert proc.returncode == 1 and "check: timeout raised" not in proc.stdout, (proc.returncode, proc.stdout)
    assert "Caught SIGCHLD" in proc.stderr
