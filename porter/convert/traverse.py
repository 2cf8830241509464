"""Fast traversal of libcst trees: libcst's visiting order and results, without its costs.

``node.visit(visitor)`` rebuilds every node it passes, read-only visitors included, and most
nodes of a module are whitespace and punctuation (about two thirds of torch-heavy code).
The converter walks each module several times, so this module offers the same traversals
minus that work:

* **trivia** -- whitespace, comments, punctuation, operators (:data:`TRIVIA_BASES`) -- is never
  visited: no rule, resolver or driver reacts to it, and it holds no code;
* children come in libcst's own visiting order (read once per node type from libcst's
  ``_visit_and_replace_children``);
* :class:`Visitor` (``visit_X``/``leave_X``, like ``cst.CSTVisitor``) rebuilds nothing;
* :func:`transform` calls a transformer's ``on_visit``/``on_leave`` exactly as
  ``node.visit(transformer)`` does for every non-trivia node, with the same removal and
  flattening rules, and, like libcst, hands ``on_leave`` a new node for each node whose
  children it visited.  Nodes whose content did not change are copied without libcst's
  validation (their content was validated when it was built); changed ones are validated as
  libcst's constructors validate them.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import typing
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

#: node types that hold only whitespace, comments or punctuation
TRIVIA_BASES = (
    cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comment,
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.ImportStar, cst.Asynchronous,
    cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace,
    cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
)

_TRIVIA: Dict[type, bool] = {}
_NODE_TYPES: Dict[type, bool] = {}


def is_node(value) -> bool:
    """``isinstance(value, cst.CSTNode)``, cached per type (libcst's bases are ABCs: slow)."""
    t = type(value)
    known = _NODE_TYPES.get(t)
    if known is None:
        known = _NODE_TYPES[t] = isinstance(value, cst.CSTNode)
    return known


def is_trivia(t: type) -> bool:
    """True for node types no converter pass visits (cached per type)."""
    known = _TRIVIA.get(t)
    if known is None:
        known = _TRIVIA[t] = issubclass(t, TRIVIA_BASES)
    return known


class _Field(typing.NamedTuple):
    name: str
    kind: str       # how libcst visits a single node here: required | optional | sentinel
    body: bool      # a statement body (libcst drops children that became empty)
    trivia: bool    # the annotation admits trivia only


_VISIT_KINDS = {"visit_required": "required", "visit_optional": "optional", "visit_sentinel": "sentinel",
                "visit_sequence": "sequence", "visit_iterable": "sequence",
                "visit_body_sequence": "body", "visit_body_iterable": "body"}
_PLANS: Dict[type, Tuple[_Field, ...]] = {}


def _visit_order(cls: type) -> List[Tuple[str, List[str]]]:
    """(field, visit kinds) in the order ``cls._visit_and_replace_children`` visits them."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls._visit_and_replace_children)))
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id in _VISIT_KINDS and len(n.args) > 1 and isinstance(n.args[1], ast.Constant)),
                   key=lambda n: (n.lineno, n.col_offset))
    order: Dict[str, List[str]] = {}
    for call in calls:
        order.setdefault(call.args[1].value, []).append(_VISIT_KINDS[call.func.id])
    return list(order.items())


def _trivia_only(annotation) -> bool:
    """True when every node type an annotation admits is trivia (``Sequence[LeftParen]``,
    ``Union[Comma, MaybeSentinel]``)."""
    found: List[type] = []

    def collect(a) -> None:
        if isinstance(a, type) and issubclass(a, cst.CSTNode):
            found.append(a)
        for arg in typing.get_args(a):
            collect(arg)
    collect(annotation)
    return bool(found) and all(issubclass(t, TRIVIA_BASES) for t in found)


def plan(cls: type) -> Tuple[_Field, ...]:
    """The child fields of a node type, in libcst's visiting order (cached)."""
    found = _PLANS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        fields = []
        for name, kinds in _visit_order(cls):
            single = next((k for k in kinds if k not in ("sequence", "body")), "required")
            fields.append(_Field(name, single, "body" in kinds, _trivia_only(hints.get(name))))
        found = _PLANS[cls] = tuple(fields)
    return found


_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def child_fields(cls: type) -> Tuple[str, ...]:
    """The fields of a node type that may hold non-trivia children, in visiting order."""
    found = _CHILD_FIELDS.get(cls)
    if found is None:
        found = _CHILD_FIELDS[cls] = tuple(f.name for f in plan(cls) if not f.trivia)
    return found


_WALKED: Dict[type, bool] = {}


def _walked(t: type) -> bool:
    """A node type, and no trivia (what :func:`walk` returns and :class:`Visitor` visits)."""
    known = _WALKED.get(t)
    if known is None:
        known = _WALKED[t] = issubclass(t, cst.CSTNode) and not is_trivia(t)
    return known


def walk(node: cst.CSTNode, skip: Optional[Callable[[cst.CSTNode], Sequence[cst.CSTNode]]] = None
         ) -> List[cst.CSTNode]:
    """Every non-trivia node of a subtree, ``node`` first (order otherwise unspecified).

    ``skip(n)`` may return children of ``n`` whose subtrees are left out.  Reads the fields
    directly: several times faster than a ``CSTVisitor``, which rebuilds every node."""
    return _walk(node, _WALKED, _walked, skip)


#: what a statement's own code consists of: statements, blocks and the clauses holding them
_STATEMENT_LEVEL = (cst.BaseStatement, cst.BaseSmallStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler,
                    cst.ExceptStarHandler, cst.Finally, cst.MatchCase)
_STATEMENTS: Dict[type, bool] = {}


def _statement_level(t: type) -> bool:
    known = _STATEMENTS.get(t)
    if known is None:
        known = _STATEMENTS[t] = issubclass(t, _STATEMENT_LEVEL)
    return known


def statements(node: cst.CSTNode) -> List[cst.CSTNode]:
    """``node`` and every statement, small statement, block and clause under it, in no set
    order: :func:`walk` without entering expressions (a tenth of the nodes), for scans that
    look for assignments, definitions or classes."""
    return _walk(node, _STATEMENTS, _statement_level, None)


def _walk(node: cst.CSTNode, known: Dict[type, bool], follow: Callable[[type], bool], skip) -> List[cst.CSTNode]:
    """``node`` and the descendants reached through children whose type ``follow`` accepts
    (``known``: its cache); ``skip(n)`` may name children of ``n`` not to enter."""
    out: List[cst.CSTNode] = []
    stack = [node]
    fields_of = _CHILD_FIELDS
    while stack:
        n = stack.pop()
        out.append(n)
        excluded = skip(n) if skip is not None else ()
        t = type(n)
        names = fields_of.get(t)
        for name in child_fields(t) if names is None else names:
            v = getattr(n, name)
            tv = type(v)
            if tv is tuple or tv is list:
                for x in v:
                    ok = known.get(type(x))
                    if (ok or (ok is None and follow(type(x)))) and not (excluded and _among(x, excluded)):
                        stack.append(x)
            else:
                ok = known.get(tv)
                if (ok or (ok is None and follow(tv))) and not (excluded and _among(v, excluded)):
                    stack.append(v)
    return out


def _among(node: cst.CSTNode, nodes: Sequence[cst.CSTNode]) -> bool:
    return any(node is n for n in nodes)


class Visitor:
    """A read-only visitor with ``cst.CSTVisitor``'s interface (``visit_X`` returning False
    skips the children; ``leave_X`` runs either way), started with ``self.visit(node)``."""

    def __init__(self) -> None:
        self._hooks: Dict[type, Tuple[Optional[Callable], Optional[Callable]]] = {}

    def visit(self, node: cst.CSTNode) -> None:
        """Visit ``node`` and, unless its ``visit_X`` returns False, its non-trivia subtree."""
        t = type(node)
        hooks = self._hooks.get(t)
        if hooks is None:
            hooks = self._hooks[t] = (getattr(self, f"visit_{t.__name__}", None),
                                      getattr(self, f"leave_{t.__name__}", None))
        enter, leave = hooks
        if enter is None or enter(node) is not False:
            names = _CHILD_FIELDS.get(t)
            for name in child_fields(t) if names is None else names:
                value = getattr(node, name)
                if type(value) is tuple or type(value) is list:
                    for child in value:
                        if _WALKED.get(type(child)) or _walked(type(child)):
                            self.visit(child)
                elif _WALKED.get(type(value)) or _walked(type(value)):
                    self.visit(value)
        if leave is not None:
            leave(node)


_new = object.__new__
_set = object.__setattr__
_FIELD_NAMES: Dict[type, Tuple[str, ...]] = {}


def _copy(node: cst.CSTNode, changes: Dict[str, object]) -> cst.CSTNode:
    """A new node like ``node`` with ``changes``, unvalidated (for content known valid)."""
    t = type(node)
    names = _FIELD_NAMES.get(t)
    if names is None:
        names = _FIELD_NAMES[t] = tuple(f.name for f in dataclasses.fields(t))
    new = _new(t)
    for name in names:
        _set(new, name, changes[name] if name in changes else getattr(node, name))
    return new


def _present(value) -> bool:
    """Whether libcst would visit (and leave) a node in this field value."""
    if type(value) is tuple or type(value) is list:
        return bool(value)
    return is_node(value)


def transform(node: cst.CSTNode, transformer) -> object:
    """``node.visit(transformer)`` for a transformer that ignores trivia.

    ``transformer`` has ``on_visit(node) -> bool`` and ``on_leave(original, updated)``, and an
    attribute ``trivia_hook``: None, or a callable run where libcst would have left a trivia
    node (for state that libcst's next ``on_leave`` call would have updated).
    """
    return _Transform(transformer).visit(node)


class _Transform:
    def __init__(self, transformer):
        self.t = transformer
        self.on_visit = transformer.on_visit
        self.on_leave = transformer.on_leave
        self.pure = True   # the last visit's result has its original's content

    def visit(self, node: cst.CSTNode):
        if self.on_visit(node):
            updated, pure = self._children(node)
        else:
            updated, pure = node, True
        result = self.on_leave(node, updated)
        if result is not updated:
            pure = False
            if not isinstance(result, (cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel)):
                raise cst.CSTValidationError("Expected a node of type CSTNode or a RemovalSentinel, "
                                             f"but got a return value of {type(result).__name__}")
        self.pure = pure
        return result

    def _trivia(self, value) -> None:
        hook = self.t.trivia_hook
        if hook is not None and _present(value):
            hook()

    # complexity: the traversal's hot loop over a node's fields (trivia, sequences, single nodes), inlined for speed
    def _children(self, node: cst.CSTNode):  # noqa: C901
        t = type(node)
        fields = _PLANS.get(t) or plan(t)
        watch = self.t.trivia_hook is not None  # rare: marks wait for the next node left
        changes: Dict[str, object] = {}
        pure = True
        for f in fields:
            if f.trivia:
                if watch:
                    self._trivia(getattr(node, f.name))
                continue
            value = getattr(node, f.name)
            tv = type(value)
            if tv is tuple or tv is list:
                out = []
                for child in value:
                    if not _walked(type(child)):
                        if watch:
                            self._trivia(child)
                        out.append(child)
                        continue
                    result = self.visit(child)
                    watch = self.t.trivia_hook is not None
                    if not self.pure:
                        pure = False
                    if is_node(result):
                        if not f.body or child._is_removable() or not result._is_removable():
                            out.append(result)
                    elif not isinstance(result, cst.RemovalSentinel):  # a FlattenSentinel
                        # a statement that became empty goes (libcst's visit_body_iterable)
                        keep = not f.body or child._is_removable()
                        out.extend(r for r in result if keep or not r._is_removable())
                changes[f.name] = tuple(out)
            elif is_node(value):
                if not _walked(tv):
                    if watch:
                        self._trivia(value)
                    continue
                result = self.visit(value)
                watch = self.t.trivia_hook is not None
                if not self.pure:
                    pure = False
                changes[f.name] = result if is_node(result) else self._single(f, value, result)
        new = _copy(node, changes)
        if not pure:
            new._validate()  # what the constructor (libcst's __post_init__) runs
        return new, pure

    @staticmethod
    def _single(f: _Field, value: cst.CSTNode, result):
        """A single child's result, as libcst's ``visit_required``/``_optional``/``_sentinel``."""
        if isinstance(result, cst.FlattenSentinel):
            raise TypeError(f"We got a FlattenSentinel while visiting a {type(value).__name__}. This node's "
                            "parent does not allow for it to be it to be replaced with a sequence.")
        if isinstance(result, cst.RemovalSentinel):
            if f.kind == "optional":
                return None
            if f.kind == "sentinel":
                return cst.MaybeSentinel.DEFAULT
            raise TypeError(f"We got a RemovalSentinel while visiting a {type(value).__name__}. This node's "
                            "parent does not allow it to be removed.")
        return result
