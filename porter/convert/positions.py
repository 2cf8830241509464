"""Where nodes of the original source start: line and column for the report's findings.

libcst's ``PositionProvider`` records a range for every node of the module during one code
generation pass.  A file needs the positions of its few findings only, so
:func:`start_positions` runs code generation with a state that records starts for the nodes
asked for (with ``PositionProvider``'s rules: an expression starts inside its parentheses, a
statement after its indentation, a block at its first statement), counts lines only when one
of them starts, and stops as soon as the last of them is done.
"""
from __future__ import annotations

import contextlib
import re
from contextlib import contextmanager
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n?|\n")  # as libcst's position provider splits tokens


class _Done(Exception):
    """Every node asked for has its start: the rest of the module need not be generated."""


class _StartState(CodegenState):
    """A code generation state that records where the ``wanted`` nodes start."""

    def __init__(self, module: cst.Module, wanted: Set[cst.CSTNode]):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        self.starts: Dict[cst.CSTNode, Tuple[int, int]] = {}   # final (line, 0-based column)
        self.entered: Dict[cst.CSTNode, Tuple[int, int]] = {}  # where code generation began
        self.line, self.column, self.scanned = 1, 0, 0

    def _here(self) -> Tuple[int, int]:
        """(line, column) after the tokens generated so far (each token counted as libcst does)."""
        tokens: List[str] = self.tokens
        for i in range(self.scanned, len(tokens)):
            token = tokens[i]
            if "\n" in token or "\r" in token:
                segments = _NEWLINE.split(token)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(token)
        self.scanned = len(tokens)
        return self.line, self.column

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node in self.wanted and node not in self.entered:
            self.entered[node] = self._here()

    def after_codegen(self, node: cst.CSTNode) -> None:
        if node in self.wanted:
            self.starts.setdefault(node, self.entered[node])
            if len(self.starts) == len(self.wanted):
                raise _Done

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
        if node not in self.wanted:
            yield
            return
        if start_node is not None:
            self.wanted.add(start_node)  # a child: generated (and recorded) inside this block
        here = self._here()
        yield
        self.starts[node] = self.starts[start_node] if start_node is not None else here


def start_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[cst.CSTNode, Tuple[int, int]]:
    """(line, column) where each of ``nodes`` starts in ``module``'s code, both 1-based, as
    libcst's ``PositionProvider`` places them; nodes not in the module are left out."""
    wanted = set(nodes)
    if not wanted:
        return {}
    asked = set(wanted)
    state = _StartState(module, wanted)
    with contextlib.suppress(_Done):
        module._codegen(state)
    return {n: (line, column + 1) for n, (line, column) in state.starts.items() if n in asked}
