"""Slow work a test module needs, started when collection ends so it overlaps earlier tests.

Jittor runs a CPU kernel on one core, so while a test executes a model the machine's other
core is idle.  A slow, self-contained job (the converted MCCNet training script, say: minutes
of one-core work in its own process) is a :class:`Background`; the test that needs it is
marked ``pytest.mark.background(JOB)``, the parity suite's ``conftest.py`` starts the jobs of
the selected tests once collection ends (:func:`marked_jobs`), and the test calls
:meth:`Background.result`, which waits for the job (or starts it, when nothing did).

Jittor serialises kernel compilation across processes with a lock on its cache
(``jittor.lock``, held around each compile batch), so a background Jittor process shares the
kernel cache safely with the test process.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional

_STARTED: Dict[str, "Future[Any]"] = {}
_GUARD = threading.Lock()


@dataclass(frozen=True)
class Background:
    """A job (``work()``, run in a thread) whose result a test waits for; one run per session."""

    name: str
    work: Callable[[], Any]

    def start(self) -> "Future[Any]":
        """Start the job unless it is already started; returns its future."""
        with _GUARD:
            if self.name in _STARTED:
                return _STARTED[self.name]
            future: "Future[Any]" = Future()
            _STARTED[self.name] = future

        def run() -> None:
            try:
                future.set_result(self.work())
            except BaseException as exc:  # noqa: BLE001 - re-raised in the test by result()
                future.set_exception(exc)

        threading.Thread(target=run, name=f"background {self.name}", daemon=True).start()
        return future

    def result(self, timeout: Optional[float] = None) -> Any:
        """The job's result, waiting up to ``timeout`` seconds; its exception is raised here."""
        return self.start().result(timeout)


def marked_jobs(items: Iterable[Any]) -> List[Background]:
    """The jobs named by the ``pytest.mark.background(JOB, ...)`` marks of the test ``items``,
    in order, each once."""
    found: List[Background] = []
    for item in items:
        for mark in item.iter_markers("background"):
            for job in mark.args:
                if not isinstance(job, Background):
                    raise TypeError(f"{item.nodeid}: pytest.mark.background takes Background jobs, got {job!r}")
                if job not in found:
                    found.append(job)
    return found
