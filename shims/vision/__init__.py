"""torchvision with torchvision's semantics, on PIL images, numpy arrays and Jittor Vars, without
torch: :mod:`.transforms` (and :mod:`.functional`, torchvision's ``transforms.functional``),
:mod:`.datasets`, :mod:`.utils`, :mod:`.models` (only as ``shims.vision.models``: its builders
are not re-exported here).  The converter maps ``torchvision.transforms.X`` to
``shims.vision.transforms.X``, ``torchvision.datasets.X`` to ``shims.vision.datasets.X`` and
``torchvision.models.X`` to ``shims.vision.models.X``; every other public name is also importable
from this package."""
from .transforms import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
from .datasets import *  # noqa: F401,F403
from . import datasets, functional, models, transforms, utils  # noqa: F401
