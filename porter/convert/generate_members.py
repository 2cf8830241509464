"""Write ``torch_members.json``: every public member of ``torch.Tensor``, ``torch``,
``torch.nn`` and ``torch.nn.functional`` of the installed torch, ``torch.Tensor``'s data
attributes, the names star imports of torch modules bind, and the whole public surface of the
namespaces in :data:`SURFACE` (``surface``: what docs/API_COVERAGE.md measures the table
against) and the module paths that name the same objects (``aliases``) (run it in ``.venv-torch``:
``.venv-torch/bin/python porter/mapping/generate_members.py``).

The converter reads the file to know torch's whole surface: a tensor method with no table row
is marked (JT001, unknown to the table) instead of passing through to a Jittor ``Var`` that
lacks it or defines it differently.  ``tests/test_mapping_table.py`` checks the table's rows
against it.
"""
import importlib
import inspect
import json
import sys
import types
from pathlib import Path

import torch
import torch.nn
import torch.nn.functional

OUT = Path(__file__).resolve().parents[1] / "mapping" / "torch_members.json"
ROOTS = ("torch", "torchvision")


#: the modules whose star import (``from torch.nn import *``) the converter resolves
STAR_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim",
                "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd", "torchvision.transforms",
                "torchvision.models", "torchvision.datasets", "torchvision.utils")


def tensor_attributes() -> list:
    """``torch.Tensor``'s public data attributes (``x.T``, ``x.grad_fn``, ``x.layout``): read
    without a call, so the converter checks attribute reads of these names, not calls."""
    return sorted(n for n in dir(torch.Tensor) if not n.startswith("_")
                  and not callable(inspect.getattr_static(torch.Tensor, n)))


def star_names(module: str) -> dict:
    """``{name: qualified name}`` of what ``from <module> import *`` binds: torch's names as the
    table keys them (``torch.nn.Module``, ``torch.Tensor``); a name that is not torch's
    (``math``, ``Optional`` re-exported by ``torch.nn.functional``) as ``python:<its origin>``."""
    space: dict = {}
    exec(f"from {module} import *", space)
    return {name: _origin(module, name, value) for name, value in sorted(space.items())
            if name != "__builtins__"}


def _origin(module: str, name: str, value) -> str:
    if isinstance(value, types.ModuleType):
        return value.__name__ if value.__name__.split(".")[0] in ROOTS else f"python:{value.__name__}"
    home = getattr(value, "__module__", None)
    if isinstance(home, str) and home.split(".")[0] not in (*ROOTS, "builtins") \
            and getattr(sys.modules.get(home), name, None) is value:
        return f"python:{home}.{name}"
    if isinstance(value, type) and getattr(torch, name, None) is value:
        return f"torch.{name}"  # a class re-exported by a submodule (torch.Tensor)
    return f"{module}.{name}"


#: the namespaces whose whole public surface the table must cover (docs/API_COVERAGE.md shows
#: each one's coverage): what research code calls, queries and sets
SURFACE = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
           "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.serialization", "torch.cuda",
           "torch.cuda.amp", "torch.amp", "torch.backends.cudnn", "torch.backends.cuda", "torch.backends.mps",
           "torch.backends.mkldnn", "torch.backends.openmp", "torchvision.transforms",
           "torchvision.transforms.functional", "torchvision.datasets", "torchvision.utils", "torchvision.models")


def _space(name: str):
    if name == "torch.Tensor":
        return torch.Tensor
    return importlib.import_module(name)


def surface() -> dict:
    """``{namespace: sorted public names}`` for :data:`SURFACE`: every public callable and
    attribute torch (or torchvision) defines there, deprecated aliases included; submodules and
    names that are not torch's own (``typing.Optional`` re-exported by a module) left out."""
    out = {}
    for name in SURFACE:
        space = _space(name)
        names = []
        listed = set(dir(space))
        inner = getattr(space, "m", None)
        if isinstance(space, types.ModuleType) and isinstance(inner, types.ModuleType):
            # torch.backends.cudnn & co: a module object whose class holds the flags
            # (cudnn.benchmark) and that forwards the rest to the original module ``m``
            listed = (listed - {"m"}) | set(dir(inner)) | {n for n in vars(type(space)) if not n.startswith("_")}
        for n in sorted(listed):
            if n.startswith("_"):
                continue
            try:
                value = inspect.getattr_static(space, n)
            except AttributeError:
                try:
                    value = getattr(space, n)
                except Exception:  # noqa: BLE001  (a flag that cannot be read on this machine)
                    continue
            if isinstance(value, types.ModuleType):
                continue
            if name != "torch.Tensor" and _origin(name, n, getattr(space, n, value)).startswith("python:"):
                continue
            names.append(n)
        out[name] = sorted(names)
    return out


#: namespaces whose names code also imports from the module that defines them
#: (``from torch.nn.modules.linear import Linear``, ``from torch.utils.data.dataloader import DataLoader``)
ALIASED = ("torch.nn", "torch.nn.init", "torch.nn.functional", "torch.optim", "torch.optim.lr_scheduler",
           "torch.utils.data", "torch.autograd", "torchvision.transforms", "torchvision.datasets", "torchvision.models")


def aliases() -> dict:
    """``{module path: public name}`` for classes and functions of :data:`ALIASED` reached
    through the module that defines them or a package on the way (``torch.nn.modules.Linear``,
    ``torch.nn.modules.linear.Linear`` -> ``torch.nn.Linear``), so that the table loader gives
    those paths the public name's row."""
    out = {}
    for ns in ALIASED:
        space = importlib.import_module(ns)
        for name in dir(space):
            value = getattr(space, name, None)
            home = getattr(value, "__module__", None)
            if name.startswith("_") or not (isinstance(value, type) or inspect.isfunction(value)) \
                    or not isinstance(home, str) or not home.startswith(ns + "."):
                continue
            parts = home.split(".")
            for i in range(len(ns.split(".")) + 1, len(parts) + 1):
                module = ".".join(parts[:i])
                try:
                    found = getattr(importlib.import_module(module), name, None)
                except ImportError:
                    continue
                if found is value:
                    out[f"{module}.{name}"] = f"{ns}.{name}"
    return dict(sorted(out.items()))


def members() -> dict:
    """``{module: sorted public names}`` for the four namespaces, ``torch.Tensor``'s data
    attributes and what star imports of ``STAR_MODULES`` bind."""
    spaces = {"torch.Tensor": torch.Tensor, "torch": torch, "torch.nn": torch.nn,
              "torch.nn.functional": torch.nn.functional}
    out = {"torch_version": torch.__version__.split("+")[0]}
    for name, space in spaces.items():
        out[name] = sorted(n for n in dir(space) if not n.startswith("_"))
    out["tensor_attributes"] = tensor_attributes()
    out["star"] = {m: star_names(m) for m in STAR_MODULES}
    out["surface"] = surface()
    out["aliases"] = aliases()
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(members(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
