"""Constructor arguments in subclasses of torch classes: ``super().__init__(...)`` gets the
base class's row (its argument policy and the arguments its target takes), as a written call
``nn.Linear(...)`` gets it from the table-driven rule.

``class L(nn.Linear): ... super().__init__(a, b, device=device, dtype=dtype)``: ``device=`` is
dropped (Jittor places every Var globally), ``dtype=`` becomes a cast of the layer's own
parameters on the next line (``shims.nn.with_dtype(self, dtype)``, a no-op for ``None``), and
an argument the target does not take is marked (JT002) instead of passed.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import libcst as cst

from ...mapping import ApiEntry
from .api_calls import code_of, name_factory_args, split_factory_dtype, transform_args
from .base import Rule
from .common import BlockRule, stmt_call

CODE = "JT002"


def _is_super_init(call: cst.Call) -> bool:
    """``super().__init__(...)``."""
    f = call.func
    return (isinstance(f, cst.Attribute) and f.attr.value == "__init__" and isinstance(f.value, cst.Call)
            and isinstance(f.value.func, cst.Name) and f.value.func.value == "super")


class LayerArgsRule(BlockRule, Rule):
    """Apply the torch base class's row to ``super().__init__(...)`` of its subclasses."""

    name = "layer_args"
    identifiers = frozenset({"__init__"})

    def __init__(self, ctx):
        super().__init__(ctx)
        # ("class", row or None) / ("def", name, its first parameter: the instance's name)
        self.frames: List[tuple] = []
        self.calls: Dict[cst.Call, ApiEntry] = {}          # original super().__init__ call -> base row
        self.dtypes: Dict[cst.Call, cst.BaseExpression] = {}  # its converted dtype= value

    def _base_row(self, node: cst.ClassDef) -> Optional[ApiEntry]:
        for base in node.bases:
            qual = self.ctx.qualname(base.value)
            entry = self.ctx.table.get(qual) if qual else None
            if entry is not None and entry.kind == "class" and entry.status in ("direct", "shim"):
                return entry
        return None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.frames.append(("class", self._base_row(node)))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.frames.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params.posonly_params or node.params.params
        self.frames.append(("def", node.name.value, params[0].name.value if params else "self"))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.frames.pop()
        return updated

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        if len(self.frames) < 2 or self.frames[-1][:2] != ("def", "__init__") or self.frames[-2][0] != "class":
            return
        entry = self.frames[-2][1]
        if entry is None:
            return
        instance = self.frames[-1][2]
        for stmt in body:
            call = stmt_call(stmt)
            if call is None or not _is_super_init(call):
                continue
            self.calls[call] = entry  # type: ignore[assignment]
            if split_factory_dtype(entry, name_factory_args(entry, list(call.args))[0])[1] is not None:  # type: ignore[arg-type]
                self.edit(stmt, lambda new, call=call: [new, cst.parse_statement(
                    f"shims.nn.with_dtype({instance}, {code_of(self.dtypes[call])})")]
                    if call in self.dtypes else [new])

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        entry = self.calls.get(original)
        if entry is None:
            return updated
        named, notes = name_factory_args(entry, list(updated.args))
        for n in notes:
            self.ctx.note(n)
        args = [a for a in named if not (a.keyword is not None and a.keyword.value == "device")]
        if len(args) < len(named):
            self.ctx.note(f"{entry.api}.__init__: dropped device= (Jittor places every Var globally)")
        args, dtype = split_factory_dtype(entry, args)
        args, notes, problem = transform_args(entry, args)
        if problem is not None:
            self.ctx.unsupported(original, f"{entry.api}.__init__", problem, code=CODE)
            return updated
        for n in notes:
            self.ctx.note(n)
        if dtype is not None:
            self.ctx.spell("shims.nn.with_dtype")
            self.dtypes[original] = dtype.value
        if args and len(args) < len(updated.args):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=args)
