"""``shims.nn``: torch layers whose Jittor form differs (see docs/ARCHITECTURE.md).

Containers and the torch-flavoured :class:`Module` (:mod:`.module`), pooling (:mod:`.pooling`),
normalization (:mod:`.norm`), transposed convolution and weight norm (:mod:`.conv`), padding,
activations, resizing and gradient clipping (:mod:`.functional`), recurrent layers and packed
sequences (:mod:`.rnn`), dropout (:mod:`.dropouts`), attention and transformers
(:mod:`.transformer`), and the activation/loss/pooling/padding layers Jittor lacks
(:mod:`.layers`).  Names that Jittor already gets right are not repeated here: use
``jittor.nn`` for them.
"""
from . import conv, dropouts, forward, functional, layers, module, norm, param_flag, pooling, rnn, transformer  # noqa: F401,E501
from .conv import *  # noqa: F401,F403
from .dropouts import *  # noqa: F401,F403
from .param_flag import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403

__all__ = [*module.__all__, *pooling.__all__, *norm.__all__, *conv.__all__, *functional.__all__, *rnn.__all__,
           *dropouts.__all__, *transformer.__all__, *layers.__all__, *param_flag.__all__]
