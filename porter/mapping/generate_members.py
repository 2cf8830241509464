"""Write ``torch_members.json``: every public member of ``torch.Tensor``, ``torch``,
``torch.nn`` and ``torch.nn.functional`` of the installed torch (run it in ``.venv-torch``:
``.venv-torch/bin/python porter/mapping/generate_members.py``).

The converter reads the file to know torch's whole surface: a tensor method with no table row
is marked (JT001, unknown to the table) instead of passing through to a Jittor ``Var`` that
lacks it or defines it differently.  ``tests/test_mapping_table.py`` checks the table's rows
against it.
"""
import json
import sys
from pathlib import Path

import torch
import torch.nn
import torch.nn.functional

OUT = Path(__file__).resolve().parent / "torch_members.json"


def members() -> dict:
    """``{module: sorted public names}`` for the four namespaces."""
    spaces = {"torch.Tensor": torch.Tensor, "torch": torch, "torch.nn": torch.nn,
              "torch.nn.functional": torch.nn.functional}
    out = {"torch_version": torch.__version__.split("+")[0]}
    for name, space in spaces.items():
        out[name] = sorted(n for n in dir(space) if not n.startswith("_"))
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(members(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
