"""Jittor's process-wide signal handlers undone where they change what Python code sees.

Loading Jittor's core installs C handlers (``register_sigaction``, src/utils/log.cc) that torch
does not have:

- **SIGCHLD**: when any child process ends by a signal other than SIGTERM, the whole process
  quick-exits with status 1 ("Caught SIGCHLD. Maybe out of memory").  Under torch,
  ``subprocess.run(cmd, timeout=5)`` raises ``TimeoutExpired`` after killing ``cmd``; a converted
  script instead vanished with exit 1 and no traceback, as did a test process whose child
  crashed.
- **SIGINT**: Ctrl-C quick-exits instead of raising ``KeyboardInterrupt``, so a training script's
  ``except KeyboardInterrupt: save(...)`` never ran.

:func:`python_handlers` reads the handlers Python has before Jittor is imported and
:func:`restore` puts them back afterwards.  The fault handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL)
stay Jittor's: they print a trace for a crash inside a kernel, which Python could not do.
``shims.data.DataLoader`` detects a dead worker itself, so it never relied on Jittor's SIGCHLD.
Standard library only: imported before Jittor.
"""
from __future__ import annotations

import signal
import threading
from typing import Dict

RESTORED = (signal.SIGCHLD, signal.SIGINT)


def python_handlers() -> Dict[int, object]:
    """The Python-level handlers of the signals Jittor changes, as they are now."""
    return {sig: signal.getsignal(sig) for sig in RESTORED}


def restore(handlers: Dict[int, object]) -> None:
    """Install ``handlers`` (from :func:`python_handlers`) again, replacing Jittor's C handlers.

    Only the main thread may set handlers; imported elsewhere, Jittor's stay (Python cannot
    change them from there)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig, handler in handlers.items():
        if handler is not None:  # None: set outside Python, nothing to put back
            signal.signal(sig, handler)
