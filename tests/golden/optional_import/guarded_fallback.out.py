# a module-level import nothing in the file uses is a re-export (``from .trace_utils import _assert``
# elsewhere): it keeps its converted binding; an unported one inside ``try/except ImportError``
# makes the fallback run, as when torch lacks the name
try:
    from shims.runtime import symbolic_assert as _assert
except ImportError:
    def _assert(condition, message):
        assert condition, message

try:
    from shims.nn import scaled_dot_product_attention
    raise ImportError('torch.nn.functional.a_name_torch_lacks: no Jittor port (jtport)')
    HAS_FUSED = True
except (ImportError, AttributeError):
    HAS_FUSED = False

import shims
from shims.nn import Conv2d
from jittor.nn import Linear
