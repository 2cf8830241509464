"""torchvision with torchvision's semantics, on PIL images, numpy arrays and Jittor Vars, without
torch: :mod:`.transforms`, :mod:`.utils`.  The converter maps ``torchvision.X.Y`` to
``shims.vision.Y``; every public name is also importable from its submodule."""
from .transforms import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
from . import transforms, utils  # noqa: F401
