"""``shims.optim``: torch's optimizers (:mod:`.optimizers`: Adam, AdamW, SGD, RMSprop;
:mod:`.extra`: Adadelta, Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS) and lr schedulers
(:mod:`.lr_scheduler`, also reachable as ``shims.optim.lr_scheduler``) on Jittor."""
from . import extra, grads, lr_scheduler, optimizers
from .extra import *  # noqa: F401,F403
from .grads import backward  # noqa: F401  (torch's bare loss.backward())
from .optimizers import *  # noqa: F401,F403

__all__ = [*optimizers.__all__, *extra.__all__, "lr_scheduler", "grads", "backward"]
