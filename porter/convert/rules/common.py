"""Small helpers shared by the statement-level rules: recognising one-call statements,
reading arguments, and building replacement statements that keep the user's comments."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..names import dotted
from .api_calls import code_of
from .base import Rule

__all__ = ["code_of", "stmt_call", "method_name", "receiver", "arg_value", "positional",
           "dotted_text", "replace_line", "comments_of", "BlockRule", "BlockEditRule", "block_edits"]


def stmt_call(stmt: cst.CSTNode) -> Optional[cst.Call]:
    """The call of a statement line that is exactly one call expression (``f(x)``), else None."""
    if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1:  # exact types: fast
        small = stmt.body[0]
        if type(small) is cst.Expr and type(small.value) is cst.Call:
            return small.value
    return None


def method_name(call: cst.Call) -> Optional[str]:
    """``x.foo(...)`` -> ``"foo"``; None when the callee is not an attribute."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def receiver(call: cst.Call) -> Optional[cst.BaseExpression]:
    """``x.foo(...)`` -> ``x``."""
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def arg_value(call: cst.Call, keyword: str, position: Optional[int] = None) -> Optional[cst.BaseExpression]:
    """The value passed for a parameter, by keyword or (when given) by position."""
    for i, a in enumerate(positional(call)):
        if position is not None and i == position:
            return a.value
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    return None


def positional(call: cst.Call) -> List[cst.Arg]:
    """The positional (non-star, non-keyword) arguments of a call."""
    return [a for a in call.args if a.keyword is None and not a.star]


def dotted_text(expr: cst.BaseExpression) -> Optional[str]:
    """``self.opt_G`` -> ``"self.opt_G"``; subscripts are kept as source text (``optims['G']``)."""
    parts = dotted(expr)
    if parts is not None:
        return ".".join(parts)
    if isinstance(expr, cst.Subscript):
        return code_of(expr)
    return None


def replace_line(template: cst.SimpleStatementLine, code: str,
                 leading: Sequence[cst.EmptyLine] = (), keep_comment: bool = True) -> cst.SimpleStatementLine:
    """A statement parsed from ``code`` that takes ``template``'s leading lines (plus
    ``leading``) and, when ``keep_comment``, its trailing comment."""
    new = cst.parse_statement(code)
    assert isinstance(new, cst.SimpleStatementLine)
    new = new.with_changes(leading_lines=[*template.leading_lines, *leading])
    if keep_comment:
        new = new.with_changes(trailing_whitespace=template.trailing_whitespace)
    return new


def comments_of(stmt: cst.SimpleStatementLine) -> List[cst.EmptyLine]:
    """A removed statement's comments, as lines to put before the next statement."""
    lines = [ln for ln in stmt.leading_lines if ln.comment is not None]
    if stmt.trailing_whitespace.comment is not None:
        lines.append(cst.EmptyLine(indent=True, comment=stmt.trailing_whitespace.comment))
    return lines


Edit = Callable[[cst.BaseStatement], List[cst.BaseStatement]]


def block_edits(ctx) -> Dict[cst.CSTNode, List[Edit]]:
    """The statement edits the rules of one file asked for: original statement -> functions
    of its updated form returning the statements that replace it ([] removes it), applied in
    the order the rules registered them."""
    edits = getattr(ctx, "_block_edits", None)
    if edits is None:
        edits = {}
        ctx._block_edits = edits
    return edits


class BlockRule:
    """Mixin for rules that replace or remove whole statements of a block.

    ``plan(body)`` runs pre-order on the ORIGINAL statements of every block (so the rule can
    call ``ctx.handled`` before the statements are left) and registers edits with
    :meth:`edit`; :class:`BlockEditRule` applies every rule's edits when the block is left, so
    several rules can edit the same block.
    """

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        """Decide, on original statements, which statements to replace (``self.edit``)."""
        raise NotImplementedError

    def edit(self, stmt: cst.CSTNode, replace: Callable[[cst.BaseStatement], List[cst.BaseStatement]]) -> None:
        """Replace the original statement ``stmt`` by ``replace(its updated form)``."""
        block_edits(self.ctx).setdefault(stmt, []).append(replace)  # type: ignore[attr-defined]

    def remove(self, stmt: cst.CSTNode) -> None:
        """Remove the original statement ``stmt``."""
        self.edit(stmt, lambda _: [])

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.plan(node.body)

    def visit_Module(self, node: cst.Module) -> None:
        self.plan(node.body)


class BlockEditRule(Rule):
    """Applies the statement edits the :class:`BlockRule` rules registered (runs after them)."""

    name = "block_edits"
    identifiers = frozenset()  # works on blocks, never on one statement

    def _body(self, original, updated) -> Tuple[List[cst.BaseStatement], List[cst.EmptyLine]]:
        """The edited statements, and the comments of removed statements left at the end (a
        removed statement's comments move to the next statement: ``x = x.cuda()  # to GPU``)."""
        edits = block_edits(self.ctx)
        if not edits or len(original) != len(updated) or not any(o in edits for o in original):
            return list(updated), []
        results = []
        for orig, stmt in zip(original, updated):
            stmts = [stmt]
            for fn in edits.get(orig, ()):
                stmts = [new for s in stmts for new in fn(s)]
            results.append((stmt, stmts))
        kept: Optional[str] = None
        out: List[cst.BaseStatement] = []
        carry: List[cst.EmptyLine] = []
        for stmt, stmts in results:
            if not stmts:
                comments = _comment_lines(stmt)
                if comments and kept is None:
                    # a rule that merged statements may have kept their comments itself (the
                    # block's code is generated only here: code generation dominates conversion)
                    kept = "\n".join(code_of(s) for _, ss in results for s in ss)
                carry.extend(line for line in comments if line.comment.value not in kept)
                continue
            if carry:
                stmts[0] = stmts[0].with_changes(leading_lines=[*carry, *stmts[0].leading_lines])
                carry = []
            out.extend(stmts)
        return out, carry

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body, carry = self._body(original.body, updated.body)
        if not body:
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()], leading_lines=carry)])
        return updated.with_changes(body=body, footer=[*carry, *updated.footer])

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body, carry = self._body(original.body, updated.body)
        return updated.with_changes(body=body, footer=[*carry, *updated.footer])


def _comment_lines(stmt: cst.BaseStatement) -> List[cst.EmptyLine]:
    """The comments on and above a statement, as comment lines of their own."""
    lines = [line for line in getattr(stmt, "leading_lines", ()) if line.comment is not None]
    trailing = getattr(stmt, "trailing_whitespace", None)
    if trailing is not None and trailing.comment is not None:
        lines.append(cst.EmptyLine(indent=True, comment=trailing.comment))
    return lines
