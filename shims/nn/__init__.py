"""``shims.nn``: torch layers whose Jittor form differs (see docs/ARCHITECTURE.md).

Containers and the torch-flavoured :class:`Module` (:mod:`.module`), pooling (:mod:`.pooling`),
normalization (:mod:`.norm`), transposed convolution and weight norm (:mod:`.conv`), padding,
activations, resizing and gradient clipping (:mod:`.functional`), recurrent layers and packed
sequences (:mod:`.rnn`).  Names that Jittor already gets right are not repeated here: use
``jittor.nn`` for them.
"""
from . import conv, functional, module, norm, pooling, rnn
from .conv import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403

__all__ = [*module.__all__, *pooling.__all__, *norm.__all__, *conv.__all__, *functional.__all__, *rnn.__all__]
