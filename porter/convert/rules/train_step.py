"""The training step: torch's ``zero_grad(); loss.backward(); step()`` in Jittor's fused form.

Converted code keeps torch's gradient calls as written: importing ``shims`` gives Jittor's
``Var`` torch's ``.grad`` and ``backward()`` (the gradient store, :mod:`shims.autograd`), and
``shims.optim`` optimizers step from ``.grad``.  So ``loss.backward()`` anywhere (inside
``forward``, several before one step, one feeding several optimizers), reading or editing
``p.grad`` between backward and step (``p.grad.nan_to_num_()``, clipping, ``p.grad = None``),
``clip_grad_norm_`` and ``zero_grad(set_to_none=...)`` need no rewrite.

This rule only fuses the three consecutive statements ``opt.zero_grad()``, ``loss.backward()``,
``opt.step()`` into Jittor's ``opt.step(loss)``.  That is exact: a ``shims.optim`` optimizer's
``step(loss)`` is ``zero_grad(); loss.backward(); step()`` on the store (every leaf the loss
reaches still gets its ``.grad``).  ``zero_grad`` with arguments (``set_to_none=False`` leaves
zeros that torch's step then applies) or a ``backward`` with arguments stay as written.
"""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Set

import libcst as cst

from .base import Rule
from .common import BlockRule, code_of, comments_of, dotted_text, method_name, receiver, replace_line, stmt_call

_OPT_NAME = re.compile(r"optim|^opt($|_|[A-Z0-9])|_opt($|_)|^opt[a-z]$", re.IGNORECASE)
_SCHED_NAME = re.compile(r"sched|lr_", re.IGNORECASE)


def _trailing(stmt: cst.SimpleStatementLine) -> List[cst.EmptyLine]:
    """A statement's end-of-line comment as a line of its own (or nothing)."""
    c = stmt.trailing_whitespace.comment
    return [cst.EmptyLine(indent=True, comment=c)] if c is not None else []


class TrainStepRule(BlockRule, Rule):
    """Fuse ``opt.zero_grad(); loss.backward(); opt.step()`` into ``opt.step(loss)``."""

    name = "train_step"
    identifiers = frozenset({"backward", "step", "zero_grad"})

    def __init__(self, ctx):
        super().__init__(ctx)
        self.optimizers: Set[str] = set()    # dotted targets assigned a torch optimizer
        self.containers: Set[str] = set()    # dicts/lists of optimizers
        self.schedulers: Set[str] = set()

    # -- which expressions are optimizers -----------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        for n in self.ctx.statements_in(node):
            if (type(n) is cst.Assign or type(n) is cst.AnnAssign) and n.value is not None:
                targets = [t.target for t in n.targets] if type(n) is cst.Assign else [n.target]
                kind, container = self._constructed(n.value)
                for t in targets:
                    text = dotted_text(t)
                    if text is None or kind is None:
                        continue
                    if kind == "scheduler":
                        self.schedulers.add(text)
                    elif container:
                        self.containers.add(text)
                    else:
                        self.optimizers.add(text)
        super().visit_Module(node)

    def _constructed(self, value: cst.BaseExpression):
        """('optimizer'|'scheduler'|None, is_container) for an assigned value."""
        if isinstance(value, cst.Call):
            q = self.ctx.qualname(value.func) or ""
            if q.startswith("torch.optim.lr_scheduler."):
                return "scheduler", False
            if q.startswith("torch.optim.") and q.count(".") == 2:
                return "optimizer", False
            if value.args and isinstance(value.func, cst.Name) and value.func.value in ("dict", "Munch"):
                return self._constructed(value.args[0].value)[0], True
        if isinstance(value, (cst.DictComp, cst.ListComp)):
            inner = value.value if isinstance(value, cst.DictComp) else value.elt
            return self._constructed(inner)[0], True
        if isinstance(value, (cst.Dict, cst.List, cst.Tuple)) and value.elements:
            first = value.elements[0]
            inner = first.value
            return self._constructed(inner)[0], True
        return None, False

    def is_optimizer(self, expr: cst.BaseExpression, zeroed: Set[str]) -> bool:
        """True when ``expr`` is known (or, by its name, clearly meant) to be an optimizer."""
        text = dotted_text(expr)
        if text is None:
            return False
        if text in self.schedulers or _SCHED_NAME.search(text.rsplit(".", 1)[-1]):
            return False
        if text in self.optimizers or text in zeroed:
            return True
        base = expr.value if isinstance(expr, (cst.Attribute, cst.Subscript)) else None
        if base is not None and dotted_text(base) in self.containers:
            return True
        return any(_OPT_NAME.search(part) for part in re.split(r"[.\[\]'\"]+", text) if part)

    # -- planning (original statements) -------------------------------------------------
    @staticmethod
    def _bare(stmt: cst.CSTNode, name: str) -> Optional[cst.Call]:
        """The call of a statement ``x.<name>()`` with no arguments, else None."""
        call = stmt_call(stmt)
        if call is None or method_name(call) != name or call.args:
            return None
        return call

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        for i in range(1, len(body) - 1):
            zero, back, step = (self._bare(body[i - 1], "zero_grad"), self._bare(body[i], "backward"),
                                self._bare(body[i + 1], "step"))
            if zero is None or back is None or step is None:
                continue
            opt = dotted_text(receiver(step))
            if opt is None or dotted_text(receiver(zero)) != opt:
                continue
            if not self.is_optimizer(receiver(step), {opt}) or not self.ctx.is_tensor_receiver(receiver(back)):
                continue
            original = list(body)
            self.remove(body[i - 1])
            self.remove(body[i + 1])
            self.edit(body[i], lambda new, i=i, opt=opt, original=original: [self._fused(new, opt, original, i)])
            self.ctx.handled_nodes.add(back.func)  # the callee only: the loss converts as usual
            self.ctx.handled(zero.func)
            self.ctx.handled(step.func)

    # -- building (updated statements) --------------------------------------------------
    def _fused(self, stmt: cst.SimpleStatementLine, opt: str, original, i: int) -> cst.SimpleStatementLine:
        loss = receiver(stmt_call(stmt))
        zero_stmt, step_stmt = original[i - 1], original[i + 1]
        line = replace_line(step_stmt, f"{opt}.step({code_of(loss.with_changes(lpar=[], rpar=[]))})")
        # the three lines' comments, in order, above the fused line
        lead = [*zero_stmt.leading_lines, *_trailing(zero_stmt), *comments_of(stmt), *step_stmt.leading_lines]
        return line.with_changes(leading_lines=lead)
