"""``pickle.load``/``pickle.loads``/``pickle.Unpickler`` -> ``shims.pickle``, in files using torch.

A torch project that unpickles may read pickles holding torch objects (StyleGAN2-ADA's network
pickles: ``class _LegacyUnpickler(pickle.Unpickler)``); the stdlib unpickler would import torch
for them.  ``shims.pickle``'s are the stdlib's with torch's globals built as Jittor objects, so
every use of these three names (calls, base classes, ``pickle.Unpickler.find_class(self, ...)``)
is redirected.  The names are the standard library's, not torch's, so they are not rows of the
mapping table (whose keys are torch APIs and feed ``docs/API_COVERAGE.md``): the redirect is
the data below.  Files that never import torch keep ``pickle`` untouched, as they keep everything.
"""
from __future__ import annotations

import libcst as cst

from .base import Rule

TARGETS = {
    "pickle.Unpickler": "shims.pickle.Unpickler",
    "pickle.load": "shims.pickle.load",
    "pickle.loads": "shims.pickle.loads",
}
_NOTE = ("pickle.load/loads/Unpickler -> shims.pickle: the stdlib unpickler (same trust: files "
         "you trust only) that builds torch tensors and modules as Jittor's")


class PickleRule(Rule):
    """Redirect the stdlib unpickler to ``shims.pickle``."""

    name = "pickle_load"
    identifiers = frozenset()

    @classmethod
    def applies(cls, ctx) -> bool:
        """Only files that reference ``pickle``."""
        return bool(ctx.names.library_uses)

    def _redirect(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        qual = self.ctx.names.library_uses.get(original)
        if qual is None:
            return updated
        parts = qual.split(".")
        for n in range(len(parts), 1, -1):
            target = TARGETS.get(".".join(parts[:n]))
            if target is not None:
                self.ctx.note(_NOTE)
                expr = self.ctx.spell(target)
                for attr in parts[n:]:
                    expr = cst.Attribute(value=expr, attr=cst.Name(attr))
                return expr
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._redirect(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._redirect(original, updated)
