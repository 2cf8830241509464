"""porter.convert.traverse and porter.convert.positions against libcst's own traversal and PositionProvider."""
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from porter.convert.context import walk
from porter.convert.positions import start_positions
from porter.convert.traverse import Visitor, is_trivia, statements, transform

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = '''\
"""doc"""
import torch, os  # why
from torch.nn import (Conv2d,
                      functional as F)

@dec(1)
@other
class Net(torch.nn.Module):
    def forward(self, x: int = (3), *a, k=-1, **kw) -> "T":
        y = x[1:2, ::3] + (x @ x) if x else not x
        z = [i for i in range(3) if i] or {k: v for k, v in kw.items()}
        with torch.no_grad(), open(f"{x!r:>3}") as f:
            del y; pass
        while x < 2 <= 3:
            x += 1
        try:
            pass
        except (ValueError, TypeError) as e:
            raise
        else:
            lambda q, *r: q
        finally:
            return (yield)
'''


def _sources():
    return [SAMPLE, *(p.read_text() for p in sorted((ROOT / "porter" / "rules").glob("*.py")))]


class _Recorder:
    """Records visits/leaves of non-trivia nodes; removes ``pass`` statements, flattens ``del``."""

    def __init__(self, trivia_hook=None):
        self.seen = []
        self.trivia_hook = trivia_hook

    def on_visit(self, node):
        if not is_trivia(type(node)):
            self.seen.append(("visit", type(node).__name__))
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original, updated):
        if is_trivia(type(original)):
            return updated
        self.seen.append(("leave", type(original).__name__))
        if isinstance(updated, cst.Pass):
            return cst.RemovalSentinel.REMOVE
        if isinstance(updated, cst.SimpleStatementLine) and updated.body and isinstance(updated.body[0], cst.Del):
            return cst.FlattenSentinel([updated, updated.with_changes(body=[cst.Expr(cst.Name("done"))])])
        if isinstance(updated, cst.Name) and updated.value == "x":
            return updated.with_changes(value="xx")
        return updated


class _Libcst(_Recorder, cst.CSTTransformer):
    pass


def test_transform_matches_libcst_visit():
    for source in _sources():
        module = cst.parse_module(source)
        ours, theirs = _Recorder(), _Libcst()
        new = transform(module, ours)
        assert new.code == module.visit(theirs).code
        assert ours.seen == theirs.seen


def test_transform_copies_what_it_descends_into():
    module = cst.parse_module("a = f(b)\n")
    new = transform(module, _Recorder())
    assert new is not module and new.body[0] is not module.body[0]
    assert new.body[0].body[0].value.func is not module.body[0].body[0].value.func
    assert new.code == module.code


class _Names:
    """Records the names read, skips lambdas."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def visit_Name(self, node):
        self.seen.append(node.value)

    def visit_Lambda(self, node):
        return False


def test_visitor_and_walk_match_libcst_order():
    Ours = type("Ours", (_Names, Visitor), {})
    Theirs = type("Theirs", (_Names, cst.CSTVisitor), {})
    for source in _sources():
        module = cst.parse_module(source)
        ours, theirs = Ours(), Theirs()
        ours.visit(module)
        module.visit(theirs)
        assert ours.seen == theirs.seen
        everything = []
        module.visit(type("All", (cst.CSTVisitor,), {"on_visit": lambda self, n: everything.append(n) or True})())  # noqa: B023 (called within the iteration)
        assert {id(n) for n in walk(module)} == {id(n) for n in everything if not is_trivia(type(n))}


def test_start_positions_match_position_provider():
    for source in _sources():
        module = cst.parse_module(source)
        ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        nodes = [n for n in walk(module)]
        expected = {n: (ranges[n].start.line, ranges[n].start.column + 1) for n in nodes}
        assert start_positions(module, nodes) == expected
        some = nodes[len(nodes) // 2: len(nodes) // 2 + 3]  # stops early: still right
        assert start_positions(module, some) == {n: expected[n] for n in some}
    assert start_positions(module, [cst.Name("elsewhere")]) == {}


class _Waiter:
    """Starts waiting on entering a class, def, decorator or call; records where the wait ends:
    at the next node left, trivia included (through ``trivia_hook`` for transform)."""

    def __init__(self):
        super().__init__()
        self.seen, self.waiting, self.trivia_hook = [], False, None

    def on_visit(self, node):
        if isinstance(node, (cst.ClassDef, cst.FunctionDef, cst.Decorator, cst.Call)):
            self.waiting = True
            self.trivia_hook = self._at_trivia
        return True

    def _at_trivia(self):
        self.seen.append("trivia")
        self.waiting, self.trivia_hook = False, None

    def on_leave(self, original, updated):
        if self.waiting:
            if is_trivia(type(original)):
                self._at_trivia()
            else:
                self.seen.append(type(original).__name__)
                self.waiting, self.trivia_hook = False, None
        return updated


def test_trivia_hook_runs_where_libcst_leaves_trivia():
    for source in _sources():
        module = cst.parse_module(source)
        ours, theirs = _Waiter(), type("W", (_Waiter, cst.CSTTransformer), {})()
        assert transform(module, ours).code == module.visit(theirs).code
        assert ours.seen == theirs.seen
        assert "trivia" in ours.seen or source != SAMPLE


class _Keywords:
    """Turns the first argument of every call into a keyword one: ``f(a, b)`` is invalid then."""

    trivia_hook = None

    def on_visit(self, node):
        return True

    def on_leave(self, original, updated):
        if isinstance(updated, cst.Arg) and updated.keyword is None and updated.value.deep_equals(cst.Name("a")):
            return updated.with_changes(keyword=cst.Name("k"), equal=cst.AssignEqual())
        return updated


def test_changed_nodes_are_validated_as_libcst_validates_them():
    module = cst.parse_module("f(a)\ng(a, b)\n")
    for run in (lambda: transform(module, _Keywords()),
                lambda: module.visit(type("K", (_Keywords, cst.CSTTransformer), {})())):
        with pytest.raises(cst.CSTValidationError, match="positional"):
            run()


def test_statements_are_the_statement_level_nodes_of_walk():
    level = (cst.BaseStatement, cst.BaseSmallStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally)
    for source in _sources():
        module = cst.parse_module(source)
        expected = {id(n) for n in walk(module) if isinstance(n, level)} | {id(module)}
        assert {id(n) for n in statements(module)} == expected
