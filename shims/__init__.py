"""jtport's runtime: what converted code imports (``import shims``) for torch semantics on Jittor.

Importing ``shims`` first applies the Jittor environment settings this machine needs
(:mod:`porter.machine.env`, a standard-library leaf, bound here as ``shims.env``), then imports
Jittor.  It never imports torch.

Top level: the ops (:mod:`shims.ops`), checkpoints (:mod:`shims.checkpoint`) and memory tools
(:mod:`shims.memory`).  Submodules: :mod:`shims.nn`, :mod:`shims.optim`, :mod:`shims.data`.
Importing it also gives Jittor's ``Var`` torch's gradient model (:mod:`shims.autograd`:
``.grad``, ``backward()``, ``requires_grad``, ``register_hook``).
"""
import os

from porter.machine import env

env.apply()

from . import process_signals  # noqa: E402  (standard library only: before Jittor)

_python_handlers = process_signals.python_handlers()
import jittor as jt  # noqa: E402

process_signals.restore(_python_handlers)  # Ctrl-C and a killed child as under torch

# CUDA kernels compile later, with these flags: IEEE as the CPU kernels (no effect without CUDA)
jt.flags.nvcc_flags = env.ieee_nvcc_flags(jt.flags.nvcc_flags, jt.flags.cc_flags)
# one cache key per kernel for every checkout and venv (kernels are keyed on their build command)
jt.flags.python_path = env.kernel_python(jt.flags.python_path, os.path.dirname(os.path.dirname(jt.__file__)))

from . import autograd  # noqa: E402,F401  (first: .grad/backward on Var, module tracking)
from . import indexing  # noqa: E402,F401  (range indices; Jittor's short-index setitem)
from . import array_protocol  # noqa: E402,F401  (np.asarray(var, dtype); ndarray[i] = var)
from . import ops, nn, distributed, optim, data, checkpoint, memory, profiler, cpp_extension, runtime  # noqa: E402,F401
from . import views  # noqa: E402,F401  (after ops: in-place writes through torch's views)
from . import accelerator, sparse, streams, tensorboard  # noqa: E402,F401  (torch.accelerator; dense sparse; CUDA streams; SummaryWriter)
from . import amp  # noqa: E402,F401  (GradScaler/autocast as torch runs them without CUDA)
from . import legacy  # noqa: E402,F401  (torch 0.4-1.x: Variable, typed tensor classes)
from . import queries  # noqa: E402,F401  (torch.cuda.is_bf16_supported, torch.compile, torch.Size, x.is_xpu)
from . import distributions  # noqa: E402,F401  (torch.distributions.Categorical)
from . import jit  # noqa: E402,F401  (torch.jit/fx/compile markers: the identity under eager execution)
from . import pickle  # noqa: E402,F401  (pickle.load/Unpickler of torch objects: network pickles)
from . import random_torch  # noqa: E402  (torch's CPU random stream: samplers, transforms)
from .random_torch import Generator, manual_seed  # noqa: E402
from . import vision  # noqa: E402,F401  (torchvision semantics: Resize, save_image)
from .ops import *  # noqa: E402,F401,F403
from .nn.convolution1d import conv1d  # noqa: E402,F401  (torch.nn.functional's 1-d forms, at the top as torch has them)
from .nn.pooling1d import adaptive_avg_pool1d, avg_pool1d, max_pool1d  # noqa: E402,F401
from .checkpoint import *  # noqa: E402,F401,F403
from .memory import *  # noqa: E402,F401,F403
from .unported import UnportedError, install_var_getattr, unported  # noqa: E402,F401
from .namespace import namespace  # noqa: E402,F401  (torch modules as values: getattr(F, name))
from .grad_mode import *  # noqa: E402,F401,F403
from . import grad_mode  # noqa: E402

install_var_getattr(jt.Var)  # x.grad_fn (marked): UnportedError naming the line, not a bare AttributeError

__all__ = ["jt", "autograd", "ops", "nn", "distributed", "optim", "data", "checkpoint", "memory", "env", "vision",  # noqa: F405
           *ops.__all__, *checkpoint.__all__, *memory.__all__, "unported", "UnportedError", "namespace",
           *grad_mode.__all__, "random_torch", "Generator", "manual_seed",
           "conv1d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d"]
