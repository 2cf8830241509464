"""Checkpoints: ``torch.save``/``torch.load``/``load_state_dict`` -> the ``shims`` functions.

* ``torch.save(obj, f)`` -> ``shims.save(obj, f)`` (a torch-readable ``.pth``);
* ``torch.load(f, map_location=..., weights_only=...)`` -> ``shims.load(f, ...)`` (torch-free,
  safe unpickling; ``map_location`` is accepted and ignored);
* ``m.load_state_dict(sd, strict=...)`` -> ``shims.load_state_dict(m, sd, strict=...)`` (torch keys,
  strict checking, for any Jittor module); on an optimizer or scheduler it is left and marked
  JT105 (torch's optimizer state format is not Jittor's).
"""
from __future__ import annotations

import re

import libcst as cst

from .base import Rule
from .common import dotted_text, method_name, receiver

CODE = "JT105"
_CALLS = {"torch.save": "shims.save", "torch.load": "shims.load"}
_OPTIMIZER_NAME = re.compile(r"optim|^opt|_opt|sched", re.IGNORECASE)


class CheckpointRule(Rule):
    """Route torch checkpoint calls through ``shims``."""

    name = "checkpoint"
    identifiers = frozenset({"load_state_dict"})

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        q = self.ctx.qualname(original.func)
        if q in _CALLS:
            self.ctx.handled(original.func)
            return updated.with_changes(func=self.ctx.spell(_CALLS[q]))
        if q is not None or method_name(original) != "load_state_dict":
            return updated
        recv = receiver(original)
        if recv is None or not self.ctx.is_tensor_receiver(recv):
            return updated
        text = dotted_text(recv) or ""
        if _OPTIMIZER_NAME.search(text.rsplit(".", 1)[-1]):
            self.ctx.warn(original, CODE, "torch optimizer/scheduler state does not load into a Jittor "
                          "optimizer: re-create the state or drop this line", api="load_state_dict")
            return updated
        if any(a.star for a in updated.args):
            return updated
        self.ctx.handled(original.func)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        first = cst.Arg(value=updated.func.value, comma=comma)  # type: ignore[union-attr]
        return updated.with_changes(func=self.ctx.spell("shims.load_state_dict"), args=[first, *updated.args])
