"""Writes through a view: torch changes the viewed tensor, Jittor does not (marker JT107).

In torch ``y = x.detach()``, ``y = x.view(...)``, ``y = x.t()``, ... share ``x``'s storage, so a
later ``y[i] = v``, ``y[i] += v`` or ``y.add_(v)`` changes ``x`` too.  A Jittor Var never shares
storage: the same lines leave ``x`` unchanged (``shims.indexing`` documents the measured cases;
``x.clone()`` never aliases, in either).  Such a write, in the block that made the view, is
marked: write into ``x`` itself where the code relies on it.

One such write is rewritten instead: ``nn.init.normal_(w[:, :3], ...)`` as a statement fills
part of ``w`` in torch and only a copy of the slice in Jittor, so it becomes
``w[:, :3] = <the converted init call>`` (every init target returns the Var it filled).
"""
from __future__ import annotations

from typing import Dict, Sequence

import libcst as cst

from ..names import dotted
from .base import Rule
from .common import BlockRule, arg_value, code_of, method_name, receiver, stmt_call

CODE = "JT107"
#: torch methods whose result shares the receiver's storage
VIEW_METHODS = frozenset({"detach", "view", "view_as", "reshape", "t", "transpose", "permute", "squeeze",
                          "unsqueeze", "narrow", "select", "diagonal", "expand", "expand_as", "unflatten",
                          "movedim", "swapaxes"})
#: in-place methods that are no writes to the values
_NOT_WRITES = frozenset({"requires_grad_", "retain_grad_", "share_memory_", "detach_"})


def _smalls(stmt) -> Sequence[cst.BaseSmallStatement]:
    """The small statements of a line (``y = x.detach(); y[0] = 5`` has two)."""
    return stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()


def _view_of(value: cst.BaseExpression):
    """(base expression, method) when ``value`` is ``base.<view method>(...)`` of a plain name
    base, or ``base.data`` of a dotted base (``w = net.weight.data``)."""
    if isinstance(value, cst.Attribute) and value.attr.value == "data" and dotted(value.value) is not None:
        return value.value, "data"
    if not isinstance(value, cst.Call):
        return None
    name = method_name(value)
    base = receiver(value)
    if name in VIEW_METHODS and isinstance(base, cst.Name):
        return base, name
    return None


def _written_name(small) -> str | None:
    """The name a statement writes into: ``y[...] = v``, ``y[...] += v``, ``y.add_(v)``."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
    elif isinstance(small, cst.AugAssign):
        target = small.target
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        name = method_name(small.value)
        base = receiver(small.value)
        if name and name.endswith("_") and not name.startswith("_") and name not in _NOT_WRITES \
                and isinstance(base, cst.Name):
            return base.value
        return None
    else:
        return None
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        return target.value.value
    return None


class ViewWriteRule(BlockRule, Rule):
    """Mark writes into a torch view of a tensor (torch writes through; Jittor copies)."""

    name = "views"
    identifiers = frozenset()  # works on blocks (plan), never on one statement

    def _mark(self, stmt, message: str, api: str) -> None:
        """Mark ``stmt`` as it stands in the output (the edit sees the converted statement)."""
        def mark(new):
            self.ctx.warn(new, CODE, message, api=api, at=stmt)
            return [new]
        self.edit(stmt, mark)

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        views: Dict[str, tuple] = {}  # view name -> (base name, method)
        for stmt in body:
            self._init_into_slice(stmt)
            for small in _smalls(stmt):
                self._track(stmt, small, views)

    def _track(self, stmt, small, views: Dict[str, tuple]) -> None:
        """Follow one small statement: a write into a tracked view is marked; an assignment
        starts (a view) or ends (any other value) the tracking of its name."""
        written = _written_name(small)
        if written in views:
            base, method = views.pop(written)
            made = f"{base}.data" if method == "data" else f"{base}.{method}(...)"
            self._mark(stmt, f"{written} = {made} shares {base}'s storage in torch, so this "
                       f"write changes {base} too; a Jittor Var is a copy and {base} stays unchanged: write "
                       f"into {base} itself if the code relies on it", f"torch.Tensor.{method}")
            return
        if isinstance(small, cst.Assign):
            for t in small.targets:
                if isinstance(t.target, cst.Name):
                    views.pop(t.target.value, None)
            view = _view_of(small.value)
            if view is not None and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and self.ctx.is_tensor_receiver(view[0]):
                views[small.targets[0].target.value] = (code_of(view[0]), view[1])

    def _init_into_slice(self, stmt) -> None:
        """``torch.nn.init.<fn>(w[idx], ...)`` as a statement -> ``w[idx] = <converted call>``."""
        call = stmt_call(stmt)
        qual = self.ctx.qualname(call.func) if call is not None else None
        if not qual or not qual.startswith("torch.nn.init.") or qual == "torch.nn.init.calculate_gain" \
                or not isinstance(arg_value(call, "tensor", 0), cst.Subscript):
            return

        def assign(new):
            small = new.body[0] if isinstance(new, cst.SimpleStatementLine) and len(new.body) == 1 else None
            converted = small.value if isinstance(small, cst.Expr) else None
            target = arg_value(converted, "var", 0) or arg_value(converted, "tensor", 0) \
                if isinstance(converted, cst.Call) else None
            if not isinstance(target, cst.Subscript):
                return [new]
            return [new.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)], value=converted)])]
        self.edit(stmt, assign)
