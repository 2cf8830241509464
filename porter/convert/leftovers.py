"""Leftovers: the torch uses no rule converted, found, marked and reported.

The rule driver (:mod:`.driver`, all rules in one traversal) decides leftovers right after the
rules have left a node, with what this module keeps:

* a torch use no rule handled stays as written and gets a trailing
  ``# jtport: JT<code> <api>: <reason>`` on its statement; a leftover reached through a module
  alias that now names a Jittor module (``nn.Foo`` once ``nn`` is ``jittor.nn``) is spelled
  ``torch.nn.Foo`` so it still means the torch thing;
* marks rules asked for (``ctx.unsupported``/``ctx.warn``) are added the same way;
* findings whose statement a rule later removed are dropped by :func:`finish`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from .context import FileContext, type_check
from .names import NATURAL_MODULES, ImportBinding
from .report import Finding

MARKER = "# jtport:"

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement, cst.Decorator,
               cst.ExceptHandler, cst.Else, cst.Finally)
_OPENS_MARKERS = (*_STATEMENTS, cst.IndentedBlock)
_is_block = type_check((cst.IndentedBlock, cst.Module))


@dataclass
class _Pending:
    """A marker text waiting for its statement, and the finding behind it."""

    text: str
    finding: Finding
    kind: str                                         # leftover | unsupported | warning
    use: Optional[cst.CSTNode] = None                 # a leftover's use node
    covers: frozenset = frozenset()                   # uses an unsupported mark reports for


@dataclass
class LeftoverResult:
    """Counts and findings of one file, and what the last stage needs."""

    found: int = 0
    converted: int = 0
    unsupported: List[Finding] = field(default_factory=list)
    warnings: List[Finding] = field(default_factory=list)
    kept_bindings: Set[int] = field(default_factory=set)   # id(ImportBinding) still used as torch
    #: roots (``torch``, ``torchvision``) of leftovers respelled in full (``torchvision.x.y``)
    respelled_roots: Set[str] = field(default_factory=set)
    translated: Dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    statement_marks: Dict[cst.CSTNode, List[str]] = field(default_factory=dict)
    used_names: Set[str] = field(default_factory=set)
    #: output nodes on the way to an import or a statement mark (the last stage visits only these)
    paths: Set[cst.CSTNode] = field(default_factory=set)


def default_reason(ctx: FileContext, api: str) -> Tuple[str, str]:
    """(code, reason) for a torch use that no rule converted."""
    entry = ctx.table.get(api)
    if entry is not None and entry.reason:
        return "JT001", entry.reason
    if entry is not None and entry.status in ("direct", "shim"):
        return "JT001", f"mapped to {entry.target}, but this form of use was not converted"
    space, _, name = api.rpartition(".")
    if name in ctx.table.members.get(space, ()):
        return "JT001", "not in jtport's mapping table yet (Jittor may lack it or define it differently): port by hand"
    return "JT001", "no Jittor mapping for this torch API"


def _respelled(binding: Optional[ImportBinding]) -> bool:
    """A module alias that converted code re-binds to a Jittor module."""
    return (binding is not None and binding.is_module and binding.qualname in NATURAL_MODULES
            and binding.qualname not in ("torch", "torchvision"))


@functools.lru_cache(maxsize=None)
def _not_read(node: cst.CSTNode):
    """For :func:`walk`: the children of ``node`` that are not names read by the code."""
    t = type(node)  # exact types: isinstance against libcst's ABC-based classes is slow
    if t is cst.Attribute:
        return (node.attr,)
    if t is cst.Arg:
        return (node.keyword,) if node.keyword is not None else ()
    if t is cst.Import:
        return tuple(node.names)
    if t is cst.ImportFrom:  # the module's name is not read either (``from tensorboardX import x``)
        names = tuple(node.names) if type(node.names) is not cst.ImportStar else ()
        return names if node.module is None else (*names, node.module)
    if t is cst.FunctionDef or t is cst.ClassDef or t is cst.Param:
        return (node.name,)
    return ()


_NOT_READ = _not_read


def add_marker(stmt: cst.CSTNode, texts: List[str]) -> cst.CSTNode:
    """Append ``# jtport: ...`` to the statement's line comment (idempotent)."""
    def merged(comment: Optional[cst.Comment]) -> Optional[cst.Comment]:
        existing = comment.value if comment is not None else ""
        new = [t for t in texts if t not in existing]
        if not new:
            return comment
        marker = f"{MARKER} " + "; ".join(new)
        return cst.Comment(f"{existing}  {marker}" if existing else marker)

    def with_comment(tw: cst.TrailingWhitespace) -> cst.TrailingWhitespace:
        c = merged(tw.comment)
        if c is tw.comment:
            return tw
        ws = tw.whitespace if tw.comment is not None or tw.whitespace.value else cst.SimpleWhitespace("  ")
        return tw.with_changes(whitespace=ws, comment=c)

    if isinstance(stmt, (cst.SimpleStatementLine, cst.Decorator)):
        return stmt.with_changes(trailing_whitespace=with_comment(stmt.trailing_whitespace))
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return stmt.with_changes(body=body.with_changes(header=with_comment(body.header)))
    if isinstance(body, cst.SimpleStatementSuite):
        return stmt.with_changes(body=body.with_changes(trailing_whitespace=with_comment(body.trailing_whitespace)))
    return stmt
