"""Child processes of a parity session (torch sides, background Jittor runs), tracked so that
none outlives the session: one interrupted while a child runs stops it at exit, instead of
leaving it writing into an output folder the next session fills again.

Jittor's SIGCHLD handler quick-exits the whole process when a child ends by any signal but
SIGTERM ("Caught SIGCHLD. Maybe out of memory", src/utils/log.cc; measured: a pytest process
that had imported Jittor died, silently, with a child it killed, and once with a background job
that died).  ``import shims`` puts Python's handler back (:mod:`shims.process_signals`), but the
harness may run in a process that imported Jittor without ``shims``.  So each child runs under
``sh``, which turns the command's death by a signal into an exit status (128 + the signal) that
the test reports, in a session of its own that is stopped with SIGTERM (SIGKILL only after
``GRACE_S``)."""
from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence, Set

_RUNNING: Set["subprocess.Popen[str]"] = set()
GRACE_S = 10.0  # a terminated child's time to exit before SIGKILL


# "$@" runs the command; the "exit" after it keeps sh from exec-ing it in sh's place
SHIELD = ["sh", "-c", '"$@"; exit $?', "sh"]


def _stop(proc: "subprocess.Popen[str]") -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(GRACE_S)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


@atexit.register
def _stop_running() -> None:
    for proc in list(_RUNNING):
        _stop(proc)


def run_tracked(cmd: Sequence[str], cwd: Path, env: Mapping[str, str],
                timeout: float) -> "subprocess.CompletedProcess[str]":
    """Run ``cmd`` to completion, capturing its output as text; stopped after ``timeout``
    seconds (``subprocess.TimeoutExpired``) or when the session exits."""
    proc = subprocess.Popen([*SHIELD, *(str(c) for c in cmd)], cwd=cwd, env=dict(env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    _RUNNING.add(proc)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            _stop(proc)
        _RUNNING.discard(proc)
    return subprocess.CompletedProcess([str(c) for c in cmd], proc.returncode, stdout, stderr)


def run_module(module: str, args: Sequence[object], root: Path, cwd: Path, timeout: float,
               niceness: int = 0) -> "subprocess.CompletedProcess[str]":
    """``python -m module *args`` with this interpreter, ``root`` on ``PYTHONPATH`` and unbuffered
    output, through :func:`run_tracked`; at ``nice`` ``niceness`` when it is positive, so a
    background job takes only the CPU the tests leave idle."""
    cmd = [sys.executable, "-m", module, *args]
    if niceness > 0:
        cmd = ["nice", "-n", str(niceness), *cmd]
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONUNBUFFERED="1")
    return run_tracked(cmd, cwd, env, timeout)
