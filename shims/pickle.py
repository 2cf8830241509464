"""``pickle.load``/``loads``/``Unpickler`` for converted code: torch objects come back as Jittor's.

The standard library's unpickler and trust (only for files you trust), with torch's tensor,
storage, module and ``torch_utils.persistence`` globals built as Jittor objects:
:mod:`shims.checkpoint.network_pickle`.
"""
from .checkpoint.network_pickle import Unpickler, load, loads

__all__ = ["Unpickler", "load", "loads"]
