"""torchvision with torchvision's semantics, on PIL images, numpy arrays and Jittor Vars, without
torch: :mod:`.transforms` (and :mod:`.functional`, torchvision's ``transforms.functional``),
:mod:`.datasets`, :mod:`.utils`.  The converter maps ``torchvision.transforms.X`` to
``shims.vision.transforms.X`` and ``torchvision.datasets.X`` to ``shims.vision.datasets.X``;
every public name is also importable from this package."""
from .transforms import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
from .datasets import *  # noqa: F401,F403
from . import datasets, functional, transforms, utils  # noqa: F401
