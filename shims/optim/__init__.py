"""``shims.optim``: torch's optimizers (:mod:`.optimizers`: Adam, AdamW, SGD, RMSprop;
:mod:`.extra`: Adadelta, Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS; :mod:`.adafactor`:
Adafactor; :mod:`.muon`: Muon), lr schedulers (:mod:`.lr_scheduler`, also reachable as
``shims.optim.lr_scheduler``) and stochastic weight averaging (:mod:`.swa_utils`:
AveragedModel, SWALR, update_bn and the averaging functions) on Jittor."""
from . import adafactor, extra, grads, lr_scheduler, muon, optimizers, swa_utils
from .adafactor import *  # noqa: F401,F403
from .extra import *  # noqa: F401,F403
from .grads import backward  # noqa: F401  (torch's bare loss.backward())
from .muon import *  # noqa: F401,F403
from .optimizers import *  # noqa: F401,F403

__all__ = [*optimizers.__all__, *extra.__all__, *adafactor.__all__, *muon.__all__, "lr_scheduler", "swa_utils",
           "grads", "backward"]
