"""Write ``torch_params.json``: the parameters torch's own signature gives every function and
class row of the mapping table (run it in ``.venv-torch``:
``.venv-torch/bin/python porter/convert/generate_torch_params.py``).

A converted row must accept what torch accepts, positionally and by keyword (``nn.Linear(in,
out, bias, device, dtype)``), or say what it does with the rest (``rename``/``drop``/``reject``/
``then``).  ``tests/test_torch_params.py`` checks every converted row's target against this file.
Each entry lists ``[name, kind]`` in order, kind ``p`` (positional or keyword), ``o``
(positional only), ``k`` (keyword only), ``*`` / ``**`` (variadic).
"""
import importlib
import inspect
import json
import sys
from pathlib import Path

import torch  # noqa: F401  (torch first: torchvision needs it)

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "mapping" / "torch_params.json"
sys.path.insert(0, str(HERE.parents[1]))
_KINDS = {inspect.Parameter.POSITIONAL_OR_KEYWORD: "p", inspect.Parameter.POSITIONAL_ONLY: "o",
          inspect.Parameter.KEYWORD_ONLY: "k", inspect.Parameter.VAR_POSITIONAL: "*",
          inspect.Parameter.VAR_KEYWORD: "**"}


def resolve(api: str):
    """The torch object a table key names, or None."""
    parts = api.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001  (a key that is no module: try a shorter prefix)
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def params(obj):
    """``[[name, kind], ...]`` of a callable's signature (a class: its constructor's, without
    ``self``); None when Python cannot read one (builtins written in C)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [[p.name, _KINDS[p.kind]] for p in sig.parameters.values()]


def torch_params() -> dict:
    """``{api: parameters}`` for every function and class row whose torch object has a
    readable signature."""
    # lazy: run as a script in .venv-torch, porter is importable only once sys.path has the checkout
    from porter.mapping import load_table

    out = {}
    for e in load_table():
        if e.kind not in ("function", "class") or e.is_method:
            continue
        obj = resolve(e.api)
        if obj is None or not callable(obj):
            continue
        found = params(obj)
        if found is not None:
            out[e.api] = found
    return dict(sorted(out.items()))


if __name__ == "__main__":
    OUT.write_text(json.dumps(torch_params(), indent=None, separators=(",", ":")).replace('],"', '],\n"') + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
