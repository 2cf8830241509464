"""torch 0.4-1.x idioms that torch 2.x still accepts: ``torch.autograd.Variable`` and the typed
tensor classes (``torch.ByteTensor``, ``torch.cuda.FloatTensor``, ...) used as constructors,
dtypes (``x.type(torch.cuda.FloatTensor)``) and in ``isinstance``.

Jittor places every Var by one global flag, so ``torch.cuda.FloatTensor`` is the same class as
``torch.FloatTensor`` here (what ``x.type('torch.cuda.FloatTensor')`` already does). The CPU
classes and ``Variable`` are :mod:`.tensors`; ``torch.cuda``'s are :mod:`.cuda`.
"""
from . import cuda  # noqa: F401  (torch.cuda.FloatTensor & co)
from .tensors import *  # noqa: F401,F403
from .tensors import __all__  # noqa: F401
