"""Torch names in strings: ``'torch.optim.Adam'`` -> ``'shims.optim.Adam'``.

Configurations name the classes a run builds as dotted strings that a helper imports at run time
(StyleGAN2-ADA's ``dnnlib.EasyDict(class_name='torch.optim.Adam', ...)`` with
``dnnlib.util.construct_class_by_name``); a converted project has no torch to import them from.
A string that is exactly a dotted torch name the table maps to a target taking torch's
arguments becomes that target's dotted name. A row whose target needs its arguments changed
(``ApiEntry.has_policy``) is left as it is: a plain import of the target would get torch's.
So are the names torch itself gives as strings, which code compares with: a legacy tensor
type (``x.type() == 'torch.cuda.FloatTensor'``) and an attribute such as a dtype
(``str(x.dtype) == 'torch.float32'``).
"""
from __future__ import annotations

import re

import libcst as cst

from .base import Rule

#: ``Tensor.type()``'s answers: ``torch.FloatTensor``, ``torch.cuda.HalfTensor``
_TYPE_NAME = re.compile(r"torch\.(cuda\.)?[A-Za-z0-9]*Tensor")


class NameStringRule(Rule):
    """Rewrite string literals that name a mapped torch class or function."""

    name = "name_strings"
    identifiers = frozenset()  # the resolver heats the statements holding such strings

    @classmethod
    def applies(cls, ctx) -> bool:
        return bool(ctx.names.name_strings)

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.BaseExpression:
        qual = self.ctx.names.name_strings.get(original)
        entry = self.ctx.table.get(qual) if qual else None
        if (entry is None or entry.status not in ("direct", "shim") or not entry.target
                or entry.target.startswith(".") or entry.has_policy or entry.kind == "attribute"
                or _TYPE_NAME.fullmatch(qual)):
            return updated
        quote = updated.quote
        self.ctx.note(f"{qual!r} in a string (a name imported at run time) -> {entry.target!r}")
        return updated.with_changes(value=f"{updated.prefix}{quote}{entry.target}{quote}")
