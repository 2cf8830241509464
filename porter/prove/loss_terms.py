"""Loss terms of a parity spec: ``loss = ["m:content", "m:style", "m:total[cycle]"]``.

A proof of one weighted sum can hide a broken term: a total dominated by terms that do not
exercise a path passes while the term that does is wrong.  A spec may therefore list its
training's terms; ``jtport parity`` runs the torch side and the gradient (and step) checks once
per term, each with its own row (``grads[m:style]``).  A term is ``module:callable`` (a
function ``(model, inputs, outputs) -> scalar``) or ``module:callable[key]``: the entry ``key``
of a loss that returns a dict of named terms.  A dict returned where no key is named counts as
the sum of its entries.  Stdlib only: both sides import it.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional, Tuple

_TERM = re.compile(r"^(?P<target>[^:\[\]]+:[^:\[\]]+)(?:\[(?P<key>[^\[\]]+)\])?$")


def parse_term(text: str) -> Optional[Tuple[str, Optional[str]]]:
    """``"m:fn[key]"`` -> ``("m:fn", "key")``, ``"m:fn"`` -> ``("m:fn", None)``; None if malformed."""
    m = _TERM.match(text) if isinstance(text, str) else None
    return (m["target"], m["key"]) if m else None


def term_callable(fn: Callable, key: Optional[str]) -> Callable:
    """``fn`` as one scalar term: its ``key`` entry, or the sum of a returned dict's entries."""
    def term(model: Any, inputs: Any, outputs: Any) -> Any:
        value = fn(model, inputs, outputs)
        if isinstance(value, dict):
            if key is not None:
                if key not in value:
                    raise KeyError(f"the loss returned terms {sorted(value)}, not {key!r}")
                return value[key]
            return sum(value.values())
        if key is not None:
            raise TypeError(f"loss term [{key}]: the loss returned a {type(value).__name__}, not a dict of terms")
        return value

    term.__name__ = getattr(fn, "__name__", "loss") + (f"[{key}]" if key else "")
    return term


def folder_name(term: str) -> str:
    """A folder name for a term's reference and results (``m:fn[key]`` -> ``m.fn.key``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", ".", term).strip(".")
