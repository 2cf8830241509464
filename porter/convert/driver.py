"""Run every rule in ONE traversal (:class:`RuleDriver`, :func:`run_rules`).

libcst rebuilds every node on every pass, so node identity only holds within one traversal
and between one pass's output and the next pass's input.  The driver therefore calls all rules
for each node in the same walk (rules see ``original_node`` of the parsed source, which
``names`` and positions are keyed by), and decides leftovers (:mod:`.leftovers`) right after
the rules have left a node.
"""
from __future__ import annotations

import functools
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple, Type

import libcst as cst

from .context import FileContext, Mark, attribute_chain, is_node, walk
from .leftovers import (
    _NOT_READ,
    _OPENS_MARKERS,
    _STATEMENTS,
    LeftoverResult,
    _is_block,
    _Pending,
    _respelled,
    add_marker,
    default_reason,
)
from .positions import start_positions
from .report import Finding
from .traverse import is_trivia, transform


def _overrides(rule_type: type, attr: str) -> bool:
    """Whether a rule class defines the hook ``attr`` itself (libcst's are no-ops)."""
    own = getattr(rule_type, attr, None)
    return own is not None and own is not getattr(cst.CSTTransformer, attr, None)


@functools.lru_cache(maxsize=None)
def _hooks(rule_types: Tuple[type, ...], t: type) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Which of ``rule_types`` (by index) have their own visit_X and leave_X hooks for type ``t``."""
    return tuple(tuple(i for i, r in enumerate(rule_types) if _overrides(r, f"{prefix}_{t.__name__}"))
                 for prefix in ("visit", "leave"))  # type: ignore[return-value]


def _hooked_types(rule_type: type) -> List[str]:
    """The node type names a rule class has its own ``visit_X``/``leave_X`` hooks for."""
    return [a.split("_", 1)[1] for a in dir(rule_type) if a.startswith(("visit_", "leave_"))
            and isinstance(getattr(cst, a.split("_", 1)[1], None), type) and _overrides(rule_type, a)]


_CHECKED: Set[type] = set()


def _check_hooks(rule_type: type) -> None:
    """Rules never see whitespace or punctuation (:func:`porter.convert.traverse.transform` skips it)."""
    if rule_type not in _CHECKED:
        trivia = [t for t in _hooked_types(rule_type) if is_trivia(getattr(cst, t))]
        if trivia:
            raise TypeError(f"{rule_type.__name__} hooks trivia nodes, which the driver never visits: {trivia}")
        _CHECKED.add(rule_type)


class _Kind(NamedTuple):
    """How the driver treats one node type."""

    visits: tuple      # the rules' visit_X hooks
    leaves: tuple      # the rules' leave_X hooks
    opens: bool        # a statement or block: collects the markers of what it holds
    statement: bool    # markers are added to it
    use: bool          # may be a torch use, or a call of one
    tracked: bool      # may be a torch import


class RuleDriver:
    """Calls every rule's ``visit_X``/``leave_X`` per node, then handles leftovers and marks.

    Driven by :func:`porter.convert.traverse.transform` (libcst's order and results, trivia left out)."""

    def __init__(self, ctx: FileContext, rule_types: Sequence[Type[cst.CSTTransformer]]):
        for r in rule_types:
            _check_hooks(r)
        self.ctx = ctx
        self.rules = [r(ctx) for r in rule_types if r.applies(ctx)]  # type: ignore[attr-defined]
        #: set while marks a ``visit_X`` hook made wait for the next node left: libcst would
        #: take them on the first whitespace or punctuation node it leaves
        self.trivia_hook: Optional[Callable[[], None]] = None
        self.uses = {**ctx.names.uses, **ctx.names.method_uses}
        self.tracked = {rec.node for rec in ctx.names.imports}
        self.result = LeftoverResult()
        self.pending: List[List[_Pending]] = []
        self.placed: List[Tuple[_Pending, cst.CSTNode]] = []   # (pending, its statement)
        self.located: List[Tuple[Finding, cst.CSTNode]] = []    # (finding, node it reports)
        self._marks_seen = 0
        self._on_path: List[bool] = [False]
        self.hot = ctx.names.hot_statements
        self._kinds: Dict[type, _Kind] = {}
        self._use_types = {type(n) for n in self.uses}
        self._tracked_types = {type(n) for n in self.tracked}

    def _kind(self, t: type) -> "_Kind":
        """What the driver does with nodes of type ``t`` (found once per file and type)."""
        visits, leaves = _hooks(tuple(type(r) for r in self.rules), t)
        kind = self._kinds[t] = _Kind(tuple(getattr(self.rules[i], f"visit_{t.__name__}") for i in visits),
                                      tuple(getattr(self.rules[i], f"leave_{t.__name__}") for i in leaves),
                                      issubclass(t, _OPENS_MARKERS), issubclass(t, _STATEMENTS),
                                      t in self._use_types or t is cst.Call, t in self._tracked_types)
        return kind

    # -- traversal ----------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        t = type(node)
        kind = self._kinds.get(t) or self._kind(t)
        self._on_path.append(False)
        if kind.opens:
            self.pending.append([])
        if t is cst.SimpleStatementLine and self.hot is not None and node not in self.hot:
            return False  # nothing in it any rule reacts to: left as it is, not rebuilt
        if not kind.visits:
            return True
        descend = True
        for visit in kind.visits:
            if visit(node) is False:
                descend = False
        if self._marks_seen < len(self.ctx.marks):
            self.trivia_hook = self._take_waiting_marks
        return descend

    def _take_waiting_marks(self) -> None:
        self._take_marks(None)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        t = type(original)
        kind = self._kinds.get(t) or self._kind(t)
        result = updated
        for leave in kind.leaves:
            result = leave(original, result)
            if type(result) is not t:
                break
        on_path = self._on_path.pop()
        if kind.tracked and original in self.tracked:
            self.result.translated[original] = result
            on_path = True
        if kind.use:
            result = self._uses_left(original, result)
        if self._marks_seen < len(self.ctx.marks):
            self._take_marks(result)
        if t is cst.IndentedBlock:
            inner = self.pending.pop()
            if inner and self.pending:
                self.pending[-1].extend(inner)
        elif kind.statement and is_node(result):
            result = self._close_statement(result)
        if self.result.statement_marks and _is_block(result) and any(
                s in self.result.statement_marks for s in result.body):
            on_path = True
        if on_path and not isinstance(result, (cst.RemovalSentinel, cst.FlattenSentinel)):
            self.result.paths.add(result)
            self._on_path[-1] = True
        return result

    def _uses_left(self, original: cst.CSTNode, result):
        """Mark a torch use (or the callee of a call) that no rule converted."""
        if original in self.uses and original not in self.ctx.names.call_funcs \
                and original not in self.ctx.handled_nodes and is_node(result):
            return self._leftover(original, result)
        if type(original) is cst.Call and type(result) is cst.Call:
            # a callee is decided with its call: rules convert ``f(...)`` as a whole
            func = original.func
            if func in self.uses and func not in self.ctx.handled_nodes:
                return result.with_changes(func=self._leftover(func, result.func))
        return result

    # -- leftovers and marks ------------------------------------------------------------
    def _leftover(self, original: cst.CSTNode, result: cst.CSTNode) -> cst.CSTNode:
        api = self.uses[original]
        code, reason = default_reason(self.ctx, api)
        self._pend(_Pending(f"{code} {api}: {reason}", self._finding(original, api, code, reason),
                            "leftover", use=original))
        binding = self.ctx.names.binding_of(original) if not isinstance(original, cst.Call) else None
        if _respelled(binding) and isinstance(original, (cst.Name, cst.Attribute)):
            self.result.respelled_roots.add(api.split(".", 1)[0])
            return attribute_chain(api.split("."))
        return result

    def _finding(self, node: cst.CSTNode, api: str, code: str, reason: str) -> Finding:
        """A finding at ``node``, placed by :meth:`locate` (position 0:0 for a node not in
        the original source)."""
        finding = Finding(self.ctx.path, 0, 0, api, code, reason)
        self.located.append((finding, node))
        return finding

    def locate(self) -> None:
        """Give the findings their line and column: one code generation pass of the original
        module, for the files with findings only, that stops at the last node needed."""
        if self.located and self.ctx.module is not None:
            starts = start_positions(self.ctx.module, (node for _, node in self.located))
            for finding, node in self.located:
                finding.line, finding.col = starts.get(node, (0, 0))

    def _pend(self, p: _Pending) -> None:
        if self.pending:
            self.pending[-1].append(p)

    def _take_marks(self, result) -> None:
        """Turn marks the rules just made into pending markers (or statement marks)."""
        self.trivia_hook = None
        marks = self.ctx.marks
        while self._marks_seen < len(marks):
            m: Mark = marks[self._marks_seen]
            self._marks_seen += 1
            api = f" {m.api}" if m.api else ""
            finding = self._finding(m.at if m.at is not None else m.node, m.api, m.code, m.reason)
            p = _Pending(f"{m.code}{api}: {m.reason}", finding,
                         "unsupported" if m.unsupported else "warning",
                         covers=frozenset(n for n in walk(m.node) if n in self.uses) if m.unsupported else frozenset())
            if isinstance(m.node, _STATEMENTS) and isinstance(result, (cst.IndentedBlock, cst.Module)):
                # a block-level rule marked one of the statements it returns: the last stage
                # adds the marker to that statement
                self.result.statement_marks.setdefault(m.node, []).append(p.text)
                self.placed.append((p, m.node))
            else:
                self._pend(p)

    def _close_statement(self, stmt: cst.CSTNode) -> cst.CSTNode:
        items = self.pending.pop()
        handled = self.ctx.handled_nodes
        covered = set().union(*(p.covers for p in items)) if items else set()
        kept = [p for p in items if p.use is None or p.use not in handled]
        texts: List[str] = []
        for p in kept:
            if p.use is not None and p.use in covered:
                continue  # counted, but reported through the mark that covers it
            if p.text not in texts:
                texts.append(p.text)
        if texts:
            stmt = add_marker(stmt, texts)
        self.placed.extend((p, stmt) for p in kept)
        return stmt


def run_rules(module: cst.Module, ctx: FileContext, rule_types) -> Tuple[cst.Module, LeftoverResult]:
    """Apply all rules in one traversal; return the new module and its leftovers' result."""
    driver = RuleDriver(ctx, rule_types)
    out = transform(module, driver)
    driver.locate()
    result = driver.result
    wanted = {stmt for _, stmt in driver.placed}
    present: Set[cst.CSTNode] = set()
    for node in walk(out, skip=_NOT_READ):
        if type(node) is cst.Name:
            result.used_names.add(node.value)
        elif node in wanted:
            present.add(node)
    covers: Dict[cst.CSTNode, Set[cst.CSTNode]] = {}
    for p, stmt in driver.placed:
        covers.setdefault(stmt, set()).update(p.covers)
    left = set()
    uncounted = 0  # unsupported marks on code holding no torch use (a super().__init__ argument)
    for p, stmt in driver.placed:
        if stmt not in present:
            continue
        if p.use is not None:
            left.add(p.use)
            binding = ctx.names.binding_of(p.use) if not isinstance(p.use, cst.Call) else None
            if binding is not None and not _respelled(binding):
                result.kept_bindings.add(id(binding))
            if p.use in covers[stmt]:
                continue
        elif p.kind == "unsupported":
            # the uses a mark covers are unsupported even where a rule also took them
            # (``x.pin_memory().to(d)``: the device rule handled the receiver's calls)
            left.update(p.covers)
            uncounted += not p.covers
        (result.warnings if p.kind == "warning" else result.unsupported).append(p.finding)
    result.found = len(driver.uses) + uncounted
    result.converted = len(driver.uses) - len(left)
    return out, result
