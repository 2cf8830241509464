"""The last stage: torch imports become the Jittor imports the converted code needs.

- a module alias that maps naturally keeps its name: ``import torch.nn as nn`` ->
  ``from jittor import nn``; ``from torch.nn import functional as F`` -> ``from jittor import nn as F``;
- a name imported from torch is retargeted to its row's target: ``from torch.nn import Conv2d``
  -> ``from jittor.nn import Conv2d``; ``from torch.nn import MaxPool2d`` -> ``from shims.nn import MaxPool2d``;
- ``import shims`` is added once to every converted file, where the first torch import was (or
  before the file's own first Jittor import), and ``import jittor as jt`` when converted code
  uses ``jt``;
- a star import of a torch module becomes the imports of the names the file uses from it
  (``from torch.nn import *`` -> ``from jittor.nn import Conv2d``; ``math`` re-exported by
  ``torch.nn.functional`` -> ``import math``);
- a torch name a leftover still uses is bound to a ``shims`` placeholder instead of its import
  (``torch = shims.unported("torch")``): converted files never import torch, so the module
  imports and runs up to the leftover, which raises a ``shims.UnportedError`` naming itself;
- ``import shims`` comes first, before anything that imports Jittor (it applies the settings
  Jittor reads at import, and gives the Var the torch behaviour converted lines rely on);
- an import nothing uses any more is removed, its comments kept.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from .context import TARGET_ROOTS, FileContext
from .leftovers import LeftoverResult, add_marker
from .names import NATURAL_MODULES, ImportBinding, ImportRecord, dotted_name_of, is_torch_name
from .traverse import transform


def _import_text(module: str, names: Sequence[Tuple[str, str]]) -> str:
    parts = [n if n == local else f"{n} as {local}" for n, local in names]
    return f"from {module} import {', '.join(parts)}"


def _jittor_import_for(binding: ImportBinding, ctx: FileContext) -> Optional[Tuple[str, str, str]]:
    """(module, name, local) of the Jittor import replacing a torch binding, or None."""
    if binding.is_module:
        target = NATURAL_MODULES.get(binding.qualname)
        if target is None or "." not in target:
            return None
    else:
        entry = ctx.table.get(binding.qualname)
        if entry is None or entry.status not in ("direct", "shim") or not entry.target \
                or entry.target.startswith("."):
            return None
        target = entry.target
    module, name = target.rsplit(".", 1)
    return module, name, binding.local


_PLACEHOLDER = "{local} = shims.unported(\"{name}\")"


def _placeholder(local: str, qualname: str) -> cst.BaseSmallStatement:
    """``local = shims.unported("torch.x")``: the binding a leftover uses, without torch."""
    return cst.parse_statement(_PLACEHOLDER.format(local=local, name=qualname)).body[0]


class _ImportRewriter(cst.CSTTransformer):
    """Run by :func:`porter.convert.traverse.transform`: whitespace and punctuation hold no import."""

    trivia_hook = None

    def __init__(self, ctx: FileContext, result: LeftoverResult):
        super().__init__()
        self.ctx = ctx
        self.result = result
        if result.kept_bindings or result.respelled_roots:
            ctx.spell("shims.unported")  # the placeholders need ``import shims``
        self.used = result.used_names
        # the import statements as they stand in the rules' output (this pass's input)
        self.records: Dict[cst.CSTNode, ImportRecord] = {
            result.translated[r.node]: r for r in ctx.names.imports if r.node in result.translated}
        self.first_done = False
        self.existing = set()
        #: import statements (rules' output) in the body of a ``try`` that catches ImportError
        self.guarded: Set[cst.CSTNode] = set()

    def visit_Try(self, node: cst.Try) -> None:
        if any(_catches_import_error(h) for h in node.handlers):
            for stmt in node.body.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    self.guarded.update(stmt.body)

    # -- per statement ------------------------------------------------------------------
    def _replacement(self, small: cst.BaseSmallStatement) -> Optional[List[cst.BaseSmallStatement]]:
        """New small statements for a torch import; None when ``small`` is not one."""
        rec = self.records.get(small)
        if rec is None:
            return None
        if rec.star and not (rec.bindings or rec.python_names) and self.ctx.table.star.get(_module_of(rec)) is None:
            return [small]  # reported by the pipeline; nothing to resolve names against
        keep: List[ImportBinding] = []
        jittor: Dict[str, List[Tuple[str, str]]] = {}
        guarded = small in self.guarded
        # ``import numpy as np, torch``: numpy stays, whatever becomes of torch; so do a
        # third-party package's names without a row (``from tensorboardX import SummaryWriter, x``)
        module = _module_of(rec)
        foreign = [cst.parse_statement(f"from {module} import {', '.join(rec.foreign_aliases)}" if module
                                       else f"import {', '.join(rec.foreign_aliases)}").body[0]] \
            if rec.foreign_aliases else []
        for b in rec.bindings:
            unused = b.local not in self.used
            if not is_torch_name(b.qualname) and not unused and _jittor_import_for(b, self.ctx) is None:
                # ``import tensorboardX`` still used (names without a row, a leftover): it stays,
                # as the package is no torch
                foreign.append(cst.parse_statement(_original_import(b)).body[0])
                continue
            if id(b) in self.result.kept_bindings:
                keep.append(b)
                continue
            if b.is_module and (unused or b.qualname in ("torch", "torchvision")):
                continue  # unused, or converted uses were respelled (torch.x -> jt.x)
            imp = _jittor_import_for(b, self.ctx)
            if unused and (not rec.top_level or imp is None and not guarded):
                continue  # an unused name: dropped unless a module-level re-export can be kept
            if imp is None:
                keep.append(b)  # still used, nothing to replace it with: stays torch
            else:
                module, name, local = imp
                jittor.setdefault(module, []).append((name, local))
        if guarded and keep:
            # ``try: from torch import x / except ImportError: <fallback>``: torch's import
            # fails here, so the fallback the code provides runs instead of a placeholder
            names = ", ".join(b.qualname for b in keep)
            keep = []
            jittor_imports = [cst.parse_statement(_import_text(m, n)).body[0] for m, n in jittor.items()]
            return [*foreign, *jittor_imports, cst.parse_statement(
                f"raise ImportError({names + ': no Jittor port (jtport)'!r})").body[0]]
        out: List[cst.BaseSmallStatement] = [*foreign, *(_placeholder(b.local, b.qualname) for b in keep)]
        for module, names in jittor.items():
            out.append(cst.parse_statement(_import_text(module, names)).body[0])
        for local, origin in rec.python_names.items():  # a star import's non-torch names (math)
            if local in self.used:
                out.append(cst.parse_statement(_python_import(local, origin)).body[0])
        return out

    def _canonical(self) -> List[cst.SimpleStatementLine]:
        lines = []
        needed = self.ctx.needed_imports
        # ``import shims`` in every converted file, first: it applies the settings Jittor reads
        # when it is imported (a plain ``python file.py`` of a file that only uses ``jt.zeros``
        # must not die loading libcudart), and it gives Jittor's Var the torch behaviour the
        # converted lines rely on (``.grad``, ``is_leaf``, ``.T``), whoever imports the file
        texts = [TARGET_ROOTS["shims"][1], *(needed[root] for root in ("jittor",) if root in needed)]
        for root in sorted(self.result.respelled_roots):  # leftovers respelled torch.x.y / torchvision.x.y
            if not any(id(b) in self.result.kept_bindings and b.local == root and b.qualname == root
                       for rec in self.records.values() if rec.top_level for b in rec.bindings):
                texts.append(_PLACEHOLDER.format(local=root, name=root))
        for text in texts:
            if text not in self.existing:
                lines.append(cst.parse_statement(text))
                self.existing.add(text)
        return lines

    # -- blocks -------------------------------------------------------------------------
    def _rewrite_body(self, original: Sequence[cst.BaseStatement], body: Sequence[cst.BaseStatement],
                      top: bool) -> Tuple[List[cst.BaseStatement], List[cst.EmptyLine]]:
        """Rewrite the import lines of one block; returns (body, comment lines left over)."""
        new_body: List[cst.BaseStatement] = []
        carry: List[cst.EmptyLine] = []
        for orig, stmt in zip(original, body):
            if carry:
                stmt = stmt.with_changes(leading_lines=[*carry, *stmt.leading_lines])
                carry = []
            replaced = ([self._replacement(s) for s in orig.body]
                        if isinstance(orig, cst.SimpleStatementLine) else [None])
            if all(r is None for r in replaced):
                if top and not self.first_done and _imports_jittor(orig):
                    self.first_done = True  # a Jittor import of the file's own, before any torch import
                    new_body.extend(self._canonical())
                new_body.append(stmt)
                continue
            lines: List[cst.SimpleStatementLine] = []
            if top and not self.first_done:
                self.first_done = True
                lines.extend(self._canonical())
            own = len(lines)  # the statement's own replacement lines start here
            if len(stmt.body) == 1:  # one import per line: one line per replacement
                lines.extend(cst.SimpleStatementLine([s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                             for s in replaced[0])  # type: ignore[union-attr]
                if len(replaced[0]) == 1 and lines:  # type: ignore[arg-type]
                    lines[-1] = stmt.with_changes(body=[lines[-1].body[0]])
            else:
                small: List[cst.BaseSmallStatement] = []
                for s, r in zip(stmt.body, replaced):
                    small.extend([s] if r is None else r)
                if small:
                    last = len(small) - 1
                    small = [s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT if i == last else
                                            cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))
                             for i, s in enumerate(small)]
                    lines.append(stmt.with_changes(body=small))
            comment = stmt.trailing_whitespace.comment
            if own < len(lines) and comment is not None \
                    and all(ln.trailing_whitespace.comment is None for ln in lines):
                # the comment stays with what replaced its line
                lines[own] = lines[own].with_changes(trailing_whitespace=stmt.trailing_whitespace)
            elif lines and own == len(lines) and comment is not None:  # removed, shims added in its place
                carry = [cst.EmptyLine(indent=True, comment=comment)]
            if not lines:  # removed: its comments move to the next statement
                carry = list(stmt.leading_lines)
                if stmt.trailing_whitespace.comment is not None:
                    carry.append(cst.EmptyLine(indent=True, comment=stmt.trailing_whitespace.comment))
                continue
            lines = [ln.with_changes(leading_lines=[]) for ln in lines]
            lines[0] = lines[0].with_changes(leading_lines=stmt.leading_lines)
            new_body.extend(lines)
        return new_body, carry

    def on_visit(self, node: cst.CSTNode) -> bool:
        # only the paths to imports and marked statements: the rest is left as it is
        return node in self.result.paths and super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        texts = self.result.statement_marks.get(original)
        if texts and isinstance(updated, cst.CSTNode):
            updated = add_marker(updated, texts)
        return super().on_leave(original, updated)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body, carry = self._rewrite_body(original.body, updated.body, top=False)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=carry)]
            carry = []
        return updated.with_changes(body=body, footer=[*carry, *updated.footer])

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        self.existing = _existing_imports(original, exclude=self.records)
        body, carry = self._rewrite_body(original.body, updated.body, top=True)
        if not self.first_done:
            canonical = self._canonical()
            if canonical:
                at = _insertion_point(body)
                body = [*body[:at], *canonical, *body[at:]]
        return updated.with_changes(body=body, footer=[*carry, *updated.footer])


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _catches_import_error(handler: cst.ExceptHandler) -> bool:
    """``except:``, ``except ImportError``, ``except (ModuleNotFoundError, X)``, ``except Exception``."""
    if handler.type is None:
        return True
    types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    return any(dotted_name_of(t).rsplit(".", 1)[-1] in _IMPORT_ERRORS for t in types
               if isinstance(t, (cst.Name, cst.Attribute)))


def _existing_imports(module: cst.Module, exclude) -> Set[str]:
    """Top-level import statements (as text) that stay as they are: torch imports in
    ``exclude`` are being rewritten, so they do not count."""
    found = set()
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for s in stmt.body:
                if isinstance(s, (cst.Import, cst.ImportFrom)) and s not in exclude:
                    found.add(cst.Module([]).code_for_node(s).strip())
    return found


def _module_of(rec: ImportRecord) -> str:
    return dotted_name_of(rec.node.module) if isinstance(rec.node, cst.ImportFrom) and rec.node.module else ""


def _original_import(b: ImportBinding) -> str:
    """The import statement that made binding ``b`` (``import tensorboardX as tbx``)."""
    if b.from_import:
        module, name = b.qualname.rsplit(".", 1)
        return f"from {module} import {name}" + ("" if name == b.local else f" as {b.local}")
    return f"import {b.qualname}" + ("" if b.qualname == b.local else f" as {b.local}")


def _python_import(local: str, origin: str) -> str:
    """The import binding ``local`` to ``origin``: ``import math``, ``import numpy as np``,
    ``from typing import Optional``."""
    if local == origin:
        return f"import {origin}"
    module, _, name = origin.rpartition(".")
    if name == local and module:
        return f"from {module} import {name}"
    return f"import {origin} as {local}"


def _imports_jittor(stmt: cst.BaseStatement) -> bool:
    """``import jittor ...`` / ``from jittor... import ...`` on a line of its own."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for s in stmt.body:
        modules = ([a.name for a in s.names] if isinstance(s, cst.Import)
                   else [s.module] if isinstance(s, cst.ImportFrom) and s.module is not None and not s.relative
                   else [])
        if any(dotted_name_of(m).split(".", 1)[0] == "jittor" for m in modules):
            return True
    return False


def _insertion_point(body: Sequence[cst.BaseStatement]) -> int:
    """After a module docstring and ``from __future__`` imports."""
    i = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        i = 1
    while i < len(body) and isinstance(body[i], cst.SimpleStatementLine) and any(
            isinstance(s, cst.ImportFrom) and s.module is not None
            and cst.Module([]).code_for_node(s.module) == "__future__" for s in body[i].body):
        i += 1
    return i


def rewrite_imports(module: cst.Module, ctx: FileContext, result: LeftoverResult) -> cst.Module:
    """Replace torch imports by the Jittor/shims imports the converted module uses, and add
    the markers block-level rules asked for on whole statements."""
    return transform(module, _ImportRewriter(ctx, result))
