"""Tensor ops with torch's exact semantics, built from Jittor ops (forward and gradient).

Each function reproduces one torch call whose Jittor namesake means something else (see
``docs/API_COVERAGE.md`` for the parity case behind every one).  They are plain compositions
of Jittor ops: no Python loop over elements and no host round-trip, so they stay lazy,
fuse, and differentiate (first and higher order) like native ops.  One module per area, as
the mapping table (``porter/mapping/*.toml``) is split: :mod:`.reduce`, :mod:`.linalg`,
:mod:`.pointwise`, :mod:`.shape`, :mod:`.creation`, :mod:`.functional`, :mod:`.init`, :mod:`.dtypes`,
:mod:`.combine` (split and stack), :mod:`.gather_scatter` (index tensors and masks),
:mod:`.statistics`, :mod:`.sampling` and :mod:`.inplace` (``op_`` forms from every area); every
public name is also ``shims.ops.<name>`` and ``shims.<name>``.

Scalars: Jittor has no 0-d Vars.  Where torch returns a 0-d tensor (a full reduction), these
shims return shape ``(1,)``, the only thing Jittor can give; the API-parity harness compares
such results as scalars and says so in the row's report.

Integers: torch sums/products of bool and integer tensors in int64.  Jittor keeps the input
dtype (a uint8 sum of 300 ones is 44), so these shims accumulate integer inputs in int64 too.
"""
import jittor as _jt

from . import (combine, creation, dtypes, functional, gather_scatter, init, inplace, linalg, pointwise, reduce,
               sampling, shape, statistics)
from . import broadcast_grad  # noqa: F401  (after dtypes: wraps its operators; float64 gradient sums)
from .combine import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .dtypes import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .gather_scatter import *  # noqa: F401,F403
from .init import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .pointwise import _INPLACE  # noqa: F401  (the in-place method names, for the table's tests)
from .reduce import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403

__all__ = [*reduce.__all__, *linalg.__all__, *pointwise.__all__, *shape.__all__, *creation.__all__,
           *functional.__all__, *init.__all__, *dtypes.__all__, *combine.__all__, *gather_scatter.__all__,
           *statistics.__all__, *sampling.__all__, *inplace.__all__]


# Shims whose name is not the torch method they stand for (``x.type()`` -> ``shims.tensor_type(x)``):
# the fallback must call the receiver's own method of the torch name.
_TORCH_METHOD = {"tensor_type": "type", "where_self": "where"}


def _receiver_fallback(fn):
    """``fn`` for a Jittor Var first argument; for anything else that has a method of ``fn``'s
    name (a numpy array, a pandas frame, a list, a user's class), that method, called with the
    arguments as written.  The converter rewrites ``a.sum(axis=1)`` into ``shims.sum(a,
    axis=1)`` where it cannot prove ``a`` is no tensor; this keeps such a call what it was."""

    method = _TORCH_METHOD.get(fn.__name__, fn.__name__)

    def call(*args, **kwargs):
        if args and not isinstance(args[0], _jt.Var):
            own = getattr(args[0], method, None)
            if callable(own) and not isinstance(args[0], type):
                return own(*args[1:], **kwargs)
        return fn(*args, **kwargs)

    # functools.wraps written out: the same attributes at a third of its cost, which every
    # ``import shims`` pays for each of the ~440 ops
    call.__module__, call.__name__, call.__qualname__ = fn.__module__, fn.__name__, fn.__qualname__
    call.__doc__, call.__annotations__ = fn.__doc__, fn.__annotations__
    call.__dict__.update(fn.__dict__)
    call.__wrapped__ = fn
    return call


for _name in __all__:
    _fn = globals()[_name]
    if callable(_fn) and not isinstance(_fn, type) and getattr(_fn, "__name__", None) == _name:
        globals()[_name] = _receiver_fallback(_fn)
del _name, _fn
