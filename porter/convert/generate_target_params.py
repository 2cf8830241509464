"""Write ``target_params.json``: the keyword arguments each class row's Jittor/shims target
accepts, read from the targets' signatures (run it in ``.venv``, which has Jittor:
``.venv/bin/python -m porter.convert.generate_target_params``).

The converter cannot import Jittor, yet must not pass a torch keyword argument a target lacks
(``nn.Linear(3, 2, dtype=...)``: Jittor's ``Linear`` takes no ``dtype``): the table loader
reads this file into each class row's ``accepts``, and an argument outside it is marked
(JT002) instead of passed.  ``tests/test_target_params.py`` checks the file is current.
"""
from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "mapping" / "target_params.json"


def accepted(obj):
    """The keyword parameter names of a class's constructor (or a function); None when it
    takes ``**kwargs`` or has no readable signature."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            names.append(p.name)
    return sorted(names)


def target_params(table=None) -> dict:
    """``{target: accepted keyword names or None}`` for every class row with a target."""
    # lazy: a generator run by hand; importing shims imports Jittor
    from porter.mapping import load_table
    from shims.namespace import target_object  # shims first: Jittor's settings before Jittor loads

    table = table if table is not None else load_table()
    out = {}
    for e in table:
        if e.kind == "class" and e.status in ("direct", "shim") and e.target and not e.target.startswith("."):
            out[e.target] = accepted(target_object(e.target))
    return dict(sorted(out.items()))


if __name__ == "__main__":
    OUT.write_text(json.dumps(target_params(), indent=1) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
