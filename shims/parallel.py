"""``torch.nn.parallel.data_parallel``: the functional ``DataParallel`` on one device (Jittor
places every Var by one global flag, so the replicas torch would scatter to are the module)."""
from __future__ import annotations

__all__ = ["data_parallel"]


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """``module(*inputs, **module_kwargs)`` (``inputs`` a tuple, or one tensor)."""
    args = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*args, **(module_kwargs or {}))
