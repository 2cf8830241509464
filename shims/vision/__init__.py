"""torchvision with torchvision's semantics, on PIL images, numpy arrays and Jittor Vars, without
torch: :mod:`.transforms`, :mod:`.utils`, :mod:`.models` (only as
``shims.vision.models``: its builders are not re-exported here).  The converter maps ``torchvision.X.Y`` to
``shims.vision.Y``; every public name is also importable from its submodule."""
from .transforms import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
from . import models, transforms, utils  # noqa: F401
