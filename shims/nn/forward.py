"""``module.forward(x)`` on a Jittor module: torch calls a module's ``forward`` by name too
(``down.forward(y)`` in HRNet, hooks that wrap ``m.forward``).  The converter renames every
``def forward`` to Jittor's ``execute``; Jittor's own modules (``nn.Sequential``) have only
``execute``.  So ``forward`` on a module that defines none is its ``execute``."""
from __future__ import annotations

import jittor as jt

__all__: list = []


def _forward(self, *args, **kwargs):
    """torch's ``Module.forward``: the module's ``execute``."""
    return self.execute(*args, **kwargs)


_forward.execute_alias = True  # shims.nn.Module.execute runs a forward only when a class defines one


if not hasattr(jt.Module, "forward"):
    jt.Module.forward = _forward
