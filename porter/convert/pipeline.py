"""Convert one file's source: parse, resolve names, apply rules, mark leftovers, fix imports."""
from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from .context import FileContext
from .imports import rewrite_imports
from .driver import run_rules
from ..mapping import MappingTable, default_table
from .names import resolve
from .report import FileReport, Finding
from .rules import RULES


@dataclass
class ConvertResult:
    """The converted source of one file and its report."""

    code: str
    report: FileReport

    @property
    def changed(self) -> bool:
        """True when the converted code differs from the input."""
        return self.report.changed


def parse_error(path: str, error: cst.ParserSyntaxError) -> Finding:
    """A report finding for a file libcst cannot parse."""
    return Finding(path, error.raw_line, error.raw_column + 1, "", "JT900",
                   f"syntax error: {error.message}")


def convert_source(source: str, path: str = "<string>", table: Optional[MappingTable] = None) -> ConvertResult:
    """Convert the torch code in ``source`` to Jittor.

    Never raises on user input: a file that does not parse is returned unchanged with a
    ``JT900`` error in its report; a converter bug on one file gives ``JT901`` (set
    ``JTPORT_DEBUG=1`` to get the traceback raised instead).
    """
    report = FileReport(path)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        report.error = parse_error(path, e)
        return ConvertResult(source, report)
    table = table if table is not None else default_table()
    if not any(root in source for root in table.roots):  # imports nothing the table ports: nothing to do
        return ConvertResult(source, report)
    try:
        with _deep_recursion():
            names = resolve(module, method_names(table), rule_identifiers(RULES), table.star,
                            attribute_names(table), table.third_party)
            if not names.has_torch:
                return ConvertResult(source, report)
            code = _convert_module(module, names, table, path, source, report)
    except Exception as e:  # a converter bug must not stop a whole tree's conversion
        if os.environ.get("JTPORT_DEBUG"):
            raise
        report.error = Finding(path, 0, 0, "", "JT901", f"{type(e).__name__}: {e}")
        report.notes.append(traceback.format_exc(limit=-3))
        return ConvertResult(source, report)
    report.changed = code != source
    return ConvertResult(code, report)


def rule_identifiers(rules) -> Optional[frozenset]:
    """The union of the rules' identifiers, or None when any rule wants every statement."""
    found: set = set()
    for rule in rules:
        if rule.identifiers is None:
            return None
        found |= rule.identifiers
    return frozenset(found)


class _deep_recursion:
    """libcst visitors recurse once per nesting level; generated code nests deeply."""

    LIMIT = 20000

    def __enter__(self):
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, self.LIMIT))

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)
        return False


def _convert_module(module: cst.Module, names, table: MappingTable, path: str, source: str,
                    report: FileReport) -> str:
    ctx = FileContext(path, source, names, table, module=module)
    module, left = run_rules(module, ctx, RULES)
    module = rewrite_imports(module, ctx, left)
    report.found, report.converted = left.found, left.converted
    report.unsupported, report.warnings = left.unsupported, left.warnings
    report.notes.extend(ctx.notes)
    report.run_notes.extend(ctx.run_notes)
    return module.code


#: methods of Python's own types: a call of one with no table row (``d.values()``,
#: ``names.index(n)``) is far likelier a dict's or list's than a tensor's (sparse ``values``)
_BUILTIN_METHODS = frozenset(n for t in (dict, list, str, set, tuple, bytes, int, float) for n in dir(t)
                             if not n.startswith("_"))


def method_names(table) -> list:
    """Tensor methods the resolver records: the table's, and every other public member of
    ``torch.Tensor`` (no row: marked as unknown rather than passed through to Jittor's Var)
    except those Python's own types have too."""
    return sorted(set(table.methods) | (table.members.get("torch.Tensor", frozenset()) - _BUILTIN_METHODS))


#: tensor data attributes Jittor's Var has natively with torch's meaning (no row needed), and
#: ``name``, which is read on far more objects than tensors (``args.name``; torch's is None
#: but for named tensors)
_VAR_ATTRIBUTES = frozenset({"shape", "ndim", "name"})


def attribute_names(table) -> frozenset:
    """Tensor data attributes whose reads the resolver records: torch's (``torch_members.json``)
    except those the Var has as they are (natively, or a direct row onto the same name that
    ``import shims`` installs: ``x.T``, ``x.device``); reads of the rest are converted by their
    row (``x.data`` -> ``shims.data_of(x)``) or marked (``x.grad_fn``, ``x.layout``)."""
    out = set()
    for name in table.tensor_attributes - _VAR_ATTRIBUTES:
        row = table.get(f"torch.Tensor.{name}")
        if row is None or row.status != "direct" or row.target != f".{name}":
            out.add(name)
    return frozenset(out)
