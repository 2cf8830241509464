"""``shims.optim``: torch's optimizers (:mod:`.optimizers`) and lr schedulers
(:mod:`.lr_scheduler`, also reachable as ``shims.optim.lr_scheduler``) on Jittor."""
from . import grads, lr_scheduler, optimizers
from .grads import backward  # noqa: F401  (torch's bare loss.backward())
from .optimizers import *  # noqa: F401,F403

__all__ = [*optimizers.__all__, "lr_scheduler", "grads", "backward"]
