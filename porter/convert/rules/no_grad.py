"""``with torch.no_grad():`` around module construction.

In torch, ``no_grad`` only affects operations: parameters created inside are trainable as
always.  In Jittor every Var created under ``jt.no_grad`` is created ``stop_grad``, so a network
built inside such a block never trains (MCCNet's ``train.py`` builds ``Net`` this way: its MCC
module's weights never changed).  When the block only constructs objects, it is unwrapped and
the first statement gets a JT101 marker saying so.
"""
from __future__ import annotations

from typing import List, Sequence

import libcst as cst

from ..names import dotted
from .base import Rule
from .common import BlockRule

CODE = "JT101"
MESSAGE = ("torch.no_grad() around construction removed: under jt.no_grad Jittor would create "
           "the parameters untrainable (torch's no_grad does not affect them)")


def _constructs(value: cst.BaseExpression) -> bool:
    """``Net(...)``, ``net.Net(...)``, ``nn.Conv2d(...)``: a call of a CapWords name.

    All-capital names (``D(fake)``, ``G(z)``: GAN code calls its networks so) do not count:
    when unsure the block keeps its ``no_grad``."""
    if not isinstance(value, cst.Call):
        return False
    parts = dotted(value.func)
    if parts is None:
        return False
    name = parts[-1]
    return name[:1].isupper() and any(c.islower() for c in name)


def construction_only(body: Sequence[cst.BaseStatement]) -> bool:
    """True when every statement assigns or evaluates a class construction."""
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            assigns = isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
            if assigns or isinstance(small, cst.Expr):
                if not _constructs(small.value):
                    return False
            else:
                return False
    return bool(body)


class NoGradConstructionRule(BlockRule, Rule):
    """Unwrap ``with torch.no_grad():`` blocks that only construct objects."""

    name = "no_grad"
    identifiers = frozenset()  # works on compound statements, which are always visited

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        for stmt in body:
            if not isinstance(stmt, cst.With) or len(stmt.items) != 1:
                continue
            item = stmt.items[0]
            call = item.item
            if item.asname is not None or not isinstance(call, cst.Call) or call.args \
                    or self.ctx.qualname(call.func) != "torch.no_grad":
                continue
            if not isinstance(stmt.body, cst.IndentedBlock) or not construction_only(stmt.body.body):
                continue
            self.ctx.handled(call)
            self.edit(stmt, lambda updated, original=stmt: self._unwrap(updated, original))

    def _unwrap(self, updated: cst.BaseStatement, original: cst.With) -> List[cst.BaseStatement]:
        assert isinstance(updated, cst.With) and isinstance(updated.body, cst.IndentedBlock)
        inner = list(updated.body.body)
        header = updated.body.header.comment  # ``with torch.no_grad():  # why`` keeps its comment
        kept = [cst.EmptyLine(indent=True, comment=header)] if header is not None else []
        inner[0] = inner[0].with_changes(leading_lines=[*updated.leading_lines, *kept, *inner[0].leading_lines])
        self.ctx.warn(inner[0], CODE, MESSAGE, api="torch.no_grad", at=original)
        return inner
