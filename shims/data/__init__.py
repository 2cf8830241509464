"""``shims.data``: torch's ``DataLoader``, datasets and samplers on Jittor (see
docs/ARCHITECTURE.md).  :mod:`.dataset` (datasets, collation, worker info), :mod:`.sampler`
(samplers), :mod:`.loader` (the loader and its worker processes)."""
from . import dataset, loader, sampler
from .dataset import *  # noqa: F401,F403
from .loader import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403

__all__ = [*dataset.__all__, *sampler.__all__, *loader.__all__]
