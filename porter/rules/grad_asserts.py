"""``assert`` statements that read ``.requires_grad`` -> ``pass``, marked JT103.

Torch derives ``requires_grad`` of a computed tensor from its inputs (False when nothing it
depends on requires grad); Jittor marks every op output ``requires_grad=True`` whatever its
inputs, so a check such as MCCNet's ``assert (target.requires_grad is False)`` (on features of
a frozen encoder) always fails after conversion.  An assert changes nothing in a run that
passes it under torch, so it is dropped; the marker tells the user the check is gone.
"""
from __future__ import annotations

import libcst as cst

from .base import Rule
from ..context import walk

CODE = "JT103"
API = "torch.Tensor.requires_grad"


class GradAssertRule(Rule):
    """Drop asserts on ``requires_grad`` (Jittor cannot answer them for computed Vars)."""

    name = "grad_asserts"
    identifiers = frozenset({"requires_grad"})

    def leave_Assert(self, original: cst.Assert, updated: cst.Assert) -> cst.BaseSmallStatement:
        reads = [n for n in walk(original.test)
                 if isinstance(n, cst.Attribute) and n.attr.value == "requires_grad"]
        if not reads:
            return updated
        self.ctx.handled(original)
        replacement = cst.Pass()
        self.ctx.warn(replacement, CODE, "assert on requires_grad removed: Jittor marks every computed "
                      "Var requires_grad=True, so the check cannot hold", api=API)
        return replacement
