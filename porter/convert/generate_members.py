"""Write ``torch_members.json``: every public member of ``torch.Tensor``, ``torch``,
``torch.nn`` and ``torch.nn.functional`` of the installed torch, ``torch.Tensor``'s data
attributes, and the names star imports of torch modules bind (run it in ``.venv-torch``:
``.venv-torch/bin/python porter/mapping/generate_members.py``).

The converter reads the file to know torch's whole surface: a tensor method with no table row
is marked (JT001, unknown to the table) instead of passing through to a Jittor ``Var`` that
lacks it or defines it differently.  ``tests/test_mapping_table.py`` checks the table's rows
against it.
"""
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
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(members(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
