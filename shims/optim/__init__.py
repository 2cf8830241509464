"""``shims.optim``: torch's optimizers (:mod:`.optimizers`: Adam, AdamW, SGD, RMSprop; by family
on the torch-exact base :mod:`.torchlike`: :mod:`.adagrad_family` Adadelta, Adagrad;
:mod:`.adam_family` Adamax, NAdam, RAdam; :mod:`.sgd_family` ASGD, Rprop; :mod:`.lbfgs` LBFGS;
:mod:`.adafactor`: Adafactor; :mod:`.muon`: Muon), lr schedulers (:mod:`.lr_scheduler`, also reachable as
``shims.optim.lr_scheduler``) and stochastic weight averaging (:mod:`.swa_utils`:
AveragedModel, SWALR, update_bn and the averaging functions) on Jittor."""
from . import (adafactor, adagrad_family, adam_family, grads, lbfgs, lr_scheduler, muon, optimizers, sgd_family,
               swa_utils)
from .adafactor import *  # noqa: F401,F403
from .adagrad_family import *  # noqa: F401,F403
from .adam_family import *  # noqa: F401,F403
from .grads import backward  # noqa: F401  (torch's bare loss.backward())
from .lbfgs import *  # noqa: F401,F403
from .muon import *  # noqa: F401,F403
from .optimizers import *  # noqa: F401,F403
from .sgd_family import *  # noqa: F401,F403

__all__ = [*optimizers.__all__, *adagrad_family.__all__, *adam_family.__all__, *sgd_family.__all__, *lbfgs.__all__,
           *adafactor.__all__, *muon.__all__, "lr_scheduler", "swa_utils",
           "grads", "backward"]
