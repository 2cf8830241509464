"""Per-file state shared by the rules: names, table, spelling of targets, findings."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from ..mapping import MappingTable
from .names import TorchNames
from .traverse import is_node, statements, walk

__all__ = ["FileContext", "Mark", "attribute_chain", "is_node", "type_check", "walk"]

#: how converted code refers to the roots of targets, and the import that binds them
TARGET_ROOTS = {
    "jittor": ("jt", "import jittor as jt"),
    "shims": ("shims", "import shims"),
}


def attribute_chain(parts: List[str]) -> cst.BaseExpression:
    """``["jt", "nn", "Pool"]`` -> the expression ``jt.nn.Pool``."""
    expr: cst.BaseExpression = cst.Name(parts[0])
    for p in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(p))
    return expr


@dataclass
class Mark:
    """A ``# jtport:`` marker requested for the statement holding ``node``."""

    node: cst.CSTNode
    api: str
    code: str
    reason: str
    unsupported: bool
    at: Optional[cst.CSTNode] = None   # an original node whose position the finding reports


@dataclass
class FileContext:
    """Everything a rule may consult or record while converting one file."""

    path: str
    source: str
    names: TorchNames
    table: MappingTable
    module: Optional[cst.Module] = None   # the parsed source (findings' positions are read from it)
    handled_nodes: Set[cst.CSTNode] = field(default_factory=set)
    marks: List[Mark] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    run_notes: List[str] = field(default_factory=list)
    needed_imports: Dict[str, str] = field(default_factory=dict)  # root -> import statement
    _walks: Dict[int, Tuple[cst.CSTNode, List[cst.CSTNode]]] = field(default_factory=dict, repr=False)

    # -- queries ------------------------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """The torch qualified name of a Name/Attribute chain, or None."""
        return self.names.qualname(expr)

    def is_tensor_receiver(self, expr: cst.BaseExpression) -> bool:
        """False for receivers that clearly are not tensors."""
        return self.names.is_tensor_receiver(expr)

    def statements_in(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """:func:`porter.convert.traverse.statements` of ``node`` (its statements, blocks and clauses),
        computed once per file: several rules scan the whole original module for assignments
        or classes before the traversal."""
        cached = self._walks.get(id(node))
        if cached is None or cached[0] is not node:
            cached = self._walks[id(node)] = (node, statements(node))
        return cached[1]

    # -- producing code -----------------------------------------------------------------
    def spell(self, target: str) -> cst.BaseExpression:
        """An expression for a ``jittor.*``/``shims.*`` target; records the import it needs."""
        parts = target.split(".")
        root = parts[0]
        if root not in TARGET_ROOTS:
            raise ValueError(f"cannot spell target {target!r}: it must start with jittor or shims")
        alias, import_stmt = TARGET_ROOTS[root]
        self.needed_imports[root] = import_stmt
        return attribute_chain([alias, *parts[1:]])

    # -- recording ----------------------------------------------------------------------
    def handled(self, node: cst.CSTNode) -> None:
        """Record that the torch references in ``node`` (original tree) were converted."""
        uses = self.names.uses
        methods = self.names.method_uses
        for n in walk(node):
            if n in uses or n in methods:
                self.handled_nodes.add(n)

    def unsupported(self, node: cst.CSTNode, api: str, reason: str, code: str = "JT001") -> None:
        """Leave ``node`` as it is, mark its statement and report it as unsupported.

        The torch uses inside ``node`` count as unsupported under this reason."""
        self.marks.append(Mark(node, api, code, reason, unsupported=True))

    def warn(self, node: cst.CSTNode, code: str, message: str, api: str = "",
             at: Optional[cst.CSTNode] = None) -> None:
        """Mark the statement holding ``node`` (the node as it stands in the output); ``at``
        is the original node to report the position of, when ``node`` is new."""
        self.marks.append(Mark(node, api, code, message, unsupported=False, at=at))

    def note(self, message: str) -> None:
        """A report-only note (a dropped harmless argument, a device call removed)."""
        if message not in self.notes:
            self.notes.append(message)

    def run_note(self, message: str) -> None:
        """What the user must do to run the converted file (shown with the report's summary)."""
        if message not in self.run_notes:
            self.run_notes.append(message)


def type_check(classes) -> "callable":
    """A fast ``isinstance(node, classes)`` for CST nodes, cached per node type."""
    cache: Dict[type, bool] = {}

    def check(node) -> bool:
        t = type(node)
        v = cache.get(t)
        if v is None:
            v = cache[t] = isinstance(node, classes)
        return v
    return check
