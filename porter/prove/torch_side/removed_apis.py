"""APIs the installed torch removed that research code written for an older torch still calls
(torch side; torch only).

The torch reference of ``jtport parity --run`` runs the user's unmodified original under today's
torch; :func:`older_torch_apis` gives back, for the run, what older releases accepted, with their
meaning then:

* ``torch.utils.data.Sampler.__init__(self, data_source)``: until torch 2.1 the base class took the
  data source and ignored it; torch 2.2 deprecated the argument and later releases dropped
  ``__init__`` altogether, so a sampler calling ``super().__init__(dataset)`` (StyleGAN2-ADA's
  ``InfiniteSampler``) fails with ``object.__init__() takes exactly one argument``.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from torch.utils.data import Sampler


def _sampler_init(self, data_source=None) -> None:
    """The base sampler's ``__init__`` of torch 2.1 and earlier: the data source is ignored."""


@contextlib.contextmanager
def older_torch_apis() -> Iterator[None]:
    """Within the block the removed APIs above are back (each only where torch lacks it)."""
    restore = "__init__" not in Sampler.__dict__
    if restore:
        Sampler.__init__ = _sampler_init
    try:
        yield
    finally:
        if restore:
            del Sampler.__init__
