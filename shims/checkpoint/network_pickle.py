"""Plain pickles of torch objects (network pickles) read without torch: ``shims.pickle``.

Converted code that unpickles with ``pickle.load``/``pickle.loads``/``pickle.Unpickler`` gets
these instead (StyleGAN2-ADA's ``legacy.load_network_pkl`` subclasses ``pickle.Unpickler``).
They are the standard library's unpickler, with the same semantics and the same trust: the
file may run any code it names, exactly as with ``pickle`` (only for files you trust; see
``docs/security.md``).  :meth:`Unpickler.find_class` changes only what torch's globals mean:

* tensors and parameters (``torch._utils._rebuild_tensor_v2``, ``_rebuild_parameter``, ...)
  become ``jt.Var`` (a parameter keeps its ``requires_grad``), their storages
  (``torch.storage._load_from_bytes``: a legacy ``torch.save`` of one storage) read by the
  restricted ``.pth`` reader of :func:`shims.load`;
* an object of a ``torch_utils.persistence`` class (``<pkg>.persistence._reconstruct_persistent_obj``,
  which would exec the torch source embedded in the file) becomes the converted class's
  instance (:mod:`.persistent`);
* a torch module class (``torch.nn.Linear`` inside a pickled model) becomes an inert record
  whose parameters and buffers the enclosing converted module loads;
* any other torch global raises ``pickle.UnpicklingError`` naming it (this process has no
  torch).  Every other global resolves as the standard library resolves it.
"""
from __future__ import annotations

import io
import pickle
from typing import Any, Callable, Dict, Tuple

import jittor as jt

from .persistent import reconstructor
from .reader import read_storage_bytes
from .storages import ExpandBudget, StorageRef, materialise
from .torch_globals import rebuild_tensor_v2
from .whole_module import record_class

__all__ = ["Unpickler", "load", "loads"]

_TORCH_ROOTS = ("torch", "torchvision")


class Unpickler(pickle.Unpickler):
    """``pickle.Unpickler`` whose torch globals build Jittor objects (module docstring).

    Subclasses may override :meth:`find_class` and call ``super().find_class``, as they would
    on ``pickle.Unpickler``.
    """

    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self._budget = ExpandBudget()
        self._torch: Dict[Tuple[str, str], Callable[..., Any]] = {
            ("torch._utils", "_rebuild_tensor_v2"): self._rebuild_tensor,
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
            ("torch.storage", "_load_from_bytes"): _load_from_bytes,
        }
        self._records: Dict[Tuple[str, str], type] = {}

    def find_class(self, module: str, name: str):
        """torch's tensor and module globals as Jittor builders; everything else as stdlib."""
        key = (module, name)
        if key in self._torch:
            return self._torch[key]
        if name == "_reconstruct_persistent_obj" and module.rpartition(".")[2] == "persistence":
            return reconstructor(lambda n: super(Unpickler, self).find_class(module, n))
        if module.split(".", 1)[0] in _TORCH_ROOTS:
            if name[:1].isupper() and module.startswith(("torch.nn.modules.", "torchvision.")):
                return self._records.setdefault(key, record_class(module, name))
            raise pickle.UnpicklingError(
                f"the pickle names torch's {module}.{name}, which has no Jittor stand-in in "
                "shims.pickle (tensors, parameters, storages, torch modules and "
                "torch_utils.persistence objects load)")
        return super().find_class(module, name)

    def _rebuild_tensor(self, storage, storage_offset, size, stride, requires_grad=False,
                        backward_hooks=None, metadata=None):
        """torch._utils._rebuild_tensor_v2: the view's values, copied, as a ``jt.Var``."""
        tensor = rebuild_tensor_v2(storage, storage_offset, size, stride)
        storage.bytes_needed()  # raises for a view reaching past its storage
        return jt.array(materialise(tensor, copy=True, allow_view=False, budget=self._budget))


def _load_from_bytes(data: bytes) -> StorageRef:
    return read_storage_bytes(data)


def _rebuild_parameter(data, requires_grad=True, backward_hooks=None, state=None):
    """torch._utils._rebuild_parameter(_with_state): the Var, with the parameter's flag."""
    data.requires_grad = bool(requires_grad)
    return data


def load(file, **kwargs):
    """``pickle.load`` through :class:`Unpickler` (same keywords)."""
    return Unpickler(file, **kwargs).load()


def loads(data, /, **kwargs):
    """``pickle.loads`` through :class:`Unpickler` (same keywords)."""
    return Unpickler(io.BytesIO(data), **kwargs).load()
