"""``torch.cuda.Stream``, ``torch.cuda.stream`` and ``torch.cuda.current_stream`` for Jittor.

Jittor queues every operation of a process in one order and runs it when a value is needed
(``jt.sync_all`` waits for all of it); it has no user-visible streams.  Code that overlaps a
copy with compute on a second stream (HiSD's ``data_prefetcher``: ``with torch.cuda.stream(s):
x = x.cuda(non_blocking=True)``, then ``current_stream().wait_stream(s)``) therefore means, under
Jittor, the same program with the stream operations as no-ops: the ordering they establish is
already Jittor's.
"""
from __future__ import annotations

import contextlib
import time

import jittor as jt


class Stream:
    """A CUDA stream: Jittor's one queue (every method keeps torch's signature)."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device, self.priority = device, priority

    def wait_stream(self, stream) -> None:
        """Nothing to wait for: one queue is in order."""

    def wait_event(self, event) -> None:
        """Nothing to wait for: one queue is in order."""

    def record_event(self, event=None):
        """No events in Jittor: returns ``event`` unchanged."""
        return event

    def query(self) -> bool:
        """Whether the stream's work is done: after waiting for it, always."""
        jt.sync_all()
        return True

    def synchronize(self) -> None:
        """Wait for every queued operation."""
        jt.sync_all(True)


class Event:
    """``torch.cuda.Event``: a point in Jittor's one queue. ``record`` waits for every operation
    queued so far and notes the time, so ``elapsed_time`` measures the work between two events
    (StyleGAN2-ADA times its training phases with a pair per phase)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        self.enable_timing = enable_timing
        self._at = None

    def record(self, stream=None) -> None:
        """Wait for the queued work, then note the time."""
        jt.sync_all(True)
        self._at = time.perf_counter()

    def wait(self, stream=None) -> None:
        """Nothing to wait for: one queue is in order."""

    def query(self) -> bool:
        """Whether the recorded work is done: after ``record`` waited, always."""
        return True

    def synchronize(self) -> None:
        """The recorded work is done when ``record`` returns."""

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event to ``end`` (torch's: both recorded, with timing)."""
        if self._at is None or end._at is None:
            raise RuntimeError("elapsed_time: both events must have been recorded")
        if not (self.enable_timing and end.enable_timing):
            raise ValueError("elapsed_time: both events must be created with enable_timing=True")
        return (end._at - self._at) * 1000.0


def stream(s=None):
    """``with torch.cuda.stream(s):``: operations run in Jittor's one queue."""
    return contextlib.nullcontext(s)


def current_stream(device=None) -> Stream:
    """``torch.cuda.current_stream()``: Jittor's one queue."""
    return Stream(device)


def default_stream(device=None) -> Stream:
    """``torch.cuda.default_stream()``: Jittor's one queue."""
    return Stream(device)
