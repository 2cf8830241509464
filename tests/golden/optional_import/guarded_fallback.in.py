# a module-level import nothing in the file uses is a re-export (``from .trace_utils import _assert``
# elsewhere): it keeps its converted binding; an unported one inside ``try/except ImportError``
# makes the fallback run, as when torch lacks the name
try:
    from torch import _assert
except ImportError:
    def _assert(condition, message):
        assert condition, message

try:
    from torch.nn.functional import scaled_dot_product_attention, a_name_torch_lacks
    HAS_FUSED = True
except (ImportError, AttributeError):
    HAS_FUSED = False

from torch.nn import Conv2d, Linear
import torch.nn as nn
