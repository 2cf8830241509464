"""``shims.nn``: torch layers whose Jittor form differs (see docs/ARCHITECTURE.md).

Containers and the torch-flavoured :class:`Module` (:mod:`.module`), parameter containers
(:mod:`.containers`), pooling (:mod:`.pooling`; max pools with torch's tie rule: :mod:`.max_pool`;
1-D and power-average pooling: :mod:`.pooling1d`),
normalization (:mod:`.norm`), convolutions (transposed, weight norm: :mod:`.conv`; 1-D:
:mod:`.convolution1d`), padding, activations, resizing and gradient clipping (:mod:`.functional`),
padding layers (:mod:`.padding`), activations (:mod:`.activations`), losses (:mod:`.losses`),
distances (:mod:`.distance`), upsampling (:mod:`.upsampling`), rearranging layers
(:mod:`.rearrange`), recurrent layers and packed sequences (:mod:`.rnn`), dropout
(:mod:`.dropouts`), attention and transformers (:mod:`.transformer`).  Names that Jittor already
gets right are not repeated here: use ``jittor.nn`` for them.
"""
from . import (  # noqa: F401
    activations, containers, conv, convolution1d, distance, dropouts, embeddings, forward, functional,
    losses, max_pool, module, norm, padding, param_flag, pooling, pooling1d, pretrained, rearrange, rnn,
    transformer, upsampling)
from .activations import *  # noqa: F401,F403
from .containers import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .convolution1d import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropouts import *  # noqa: F401,F403
from .embeddings import *  # noqa: F401,F403
from .param_flag import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .max_pool import *  # noqa: F401,F403
from .pretrained import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .pooling1d import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403

__all__ = [*module.__all__, *pooling.__all__, *max_pool.__all__, *norm.__all__, *conv.__all__, *functional.__all__,
           *rnn.__all__, *dropouts.__all__, *transformer.__all__, *losses.__all__, *activations.__all__,
           *pooling1d.__all__, *padding.__all__, *rearrange.__all__, *distance.__all__, *upsampling.__all__,
           *convolution1d.__all__, *containers.__all__, *pretrained.__all__,
           *param_flag.__all__, *embeddings.__all__]
