"""The training step: torch's ``zero_grad(); loss.backward(); step()`` in Jittor's form.

Jittor computes gradients through an optimizer (``opt.backward(loss)`` fills only that
optimizer's parameters' gradients; ``opt.step(loss)`` = backward + step + zero), so every
``loss.backward()`` needs to know which optimizers consume its gradients.  Within one block:

* ``opt.zero_grad(); loss.backward(); opt.step()`` (consecutive) -> ``opt.step(loss)``;
* ``loss.backward()`` followed (later in the block) by ``a.step(); b.step()`` ->
  ``a.backward(loss, retain_graph=True); b.backward(loss)`` at the place of the backward
  (one backward feeding several optimizers, StarGAN v2); several ``backward()`` before one
  ``step()`` accumulate (Jittor's ``backward`` accumulates until ``step``/``zero_grad``);
* ``torch.nn.utils.clip_grad_norm_(params, max_norm)`` between them (or, with no backward
  before it in the block, before one optimizer's step) ->
  ``shims.nn.clip_grad_norm_(params, max_norm, optimizer=opt)`` (Jittor's gradients live in the
  optimizer);
* ``opt.zero_grad(set_to_none=...)`` -> ``opt.zero_grad()``.

* a ``loss.backward()`` with no optimizer step after it in its block (backward inside
  ``forward``, accumulation across functions) -> ``shims.optim.backward(loss)``: every live
  ``shims.optim`` optimizer holding a parameter of the loss receives its gradient, as in torch.

Forms that cannot be converted faithfully are marked JT102 and left as written: code reading
or editing ``param.grad`` between backward and step, a clip of gradients that several
optimizers consume.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set

import libcst as cst

from ..context import walk
from .base import Rule
from .common import (BlockRule, arg_value, code_of, comments_of, dotted_text, method_name,
                     positional, receiver, replace_line, stmt_call)

CODE = "JT102"
_CLIP = "torch.nn.utils.clip_grad_norm_"
_OPT_NAME = re.compile(r"optim|^opt($|_|[A-Z0-9])|_opt($|_)|^opt[a-z]$", re.IGNORECASE)
_SCHED_NAME = re.compile(r"sched|lr_", re.IGNORECASE)

BARE_BACKWARD = ("loss.backward() with no optimizer step in its block (e.g. inside forward) -> "
                 "shims.optim.backward(loss): like torch, every optimizer holding a parameter of the "
                 "loss receives its gradient; its step() applies it")
GRAD_EDIT = ("reads or edits .grad between backward() and step(): Jittor keeps gradients in the "
             "optimizer (p.opt_grad(opt)); convert by hand")


@dataclass
class _Backward:
    """One ``loss.backward(...)`` statement and the optimizers that consume it."""

    index: int
    optimizers: List[str] = field(default_factory=list)
    fused_with: Optional[tuple] = None   # (zero_grad index, step index) for opt.step(loss)


def _loss_text(call: cst.Call) -> str:
    """The loss a ``loss.backward(gradient)`` differentiates, as an argument's source text."""
    loss = receiver(call)
    gradient = arg_value(call, "gradient", 0)
    if gradient is not None:
        return f"({code_of(loss)} * {code_of(gradient)}).sum()"
    return code_of(loss.with_changes(lpar=[], rpar=[]))


def _trailing(stmt: cst.SimpleStatementLine) -> List[cst.EmptyLine]:
    """A statement's end-of-line comment as a line of its own (or nothing)."""
    c = stmt.trailing_whitespace.comment
    return [cst.EmptyLine(indent=True, comment=c)] if c is not None else []


class TrainStepRule(BlockRule, Rule):
    """Rewrite backward/step/zero_grad/clip statements into Jittor's optimizer calls."""

    name = "train_step"
    identifiers = frozenset({"backward", "step", "zero_grad", "grad"})

    def __init__(self, ctx):
        super().__init__(ctx)
        self.optimizers: Set[str] = set()    # dotted targets assigned a torch optimizer
        self.containers: Set[str] = set()    # dicts/lists of optimizers
        self.schedulers: Set[str] = set()
        self.zero_calls: Set[cst.Call] = set()
        self.marks: Dict[cst.CSTNode, tuple] = {}   # node -> (api, reason), marked when left
        self.clip_opts: Dict[cst.Call, str] = {}     # clip_grad_norm_ call -> its optimizer

    # -- which expressions are optimizers -----------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        for n in walk(node):
            if isinstance(n, (cst.Assign, cst.AnnAssign)) and n.value is not None:
                targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
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
    def _kind(stmt: cst.CSTNode) -> Optional[str]:
        call = stmt_call(stmt)
        if call is None:
            return None
        name = method_name(call)
        if name == "backward" and not positional(call)[1:]:
            return "backward"
        if name == "step" and not call.args:
            return "step"
        if name == "zero_grad":
            return "zero_grad"
        return None

    def _is_clip(self, stmt: cst.CSTNode) -> Optional[cst.Call]:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if isinstance(value, cst.Call) and self.ctx.qualname(value.func) == _CLIP:
            return value
        return None

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        kinds = [self._kind(s) for s in body]
        zeroed = {dotted_text(receiver(stmt_call(s))) for s, k in zip(body, kinds) if k == "zero_grad"}
        for i, stmt in enumerate(body):
            call = stmt_call(stmt)
            if kinds[i] == "zero_grad" and self.is_optimizer(receiver(call), zeroed) and call.args:
                self.zero_calls.add(call)
            clip = self._is_clip(stmt)
            if clip is not None and "backward" not in kinds[:i]:
                self._plan_lone_clip(clip, body[i + 1:], kinds[i + 1:], zeroed)
            if kinds[i] != "backward" or not self.ctx.is_tensor_receiver(receiver(call)):
                continue
            steps: List[int] = []
            between: List[int] = []
            for j in range(i + 1, len(body)):
                k = kinds[j]
                if k == "step" and self.is_optimizer(receiver(stmt_call(body[j])), zeroed):
                    steps.append(j)
                elif steps and k in ("backward", "zero_grad"):
                    break
                elif not steps:
                    between.append(j)
            if not steps:
                # A bare backward (HiSD's inside forward; a step in another function): at run
                # time every shims optimizer holding the loss's parameters gets the gradients.
                self.edit(stmt, lambda new: [self._bare_backward(new)])
                self.ctx.handled_nodes.add(call.func)  # the callee only: the loss converts as usual
                self.ctx.note(BARE_BACKWARD)
                continue
            opts = [dotted_text(receiver(stmt_call(body[j]))) for j in steps]
            plan = _Backward(i, opts)
            if (len(steps) == 1 and steps[0] == i + 1 and i > 0 and kinds[i - 1] == "zero_grad"
                    and dotted_text(receiver(stmt_call(body[i - 1]))) == opts[0] and not call.args):
                plan.fused_with = (i - 1, i + 1)
                self.remove(body[i - 1])
                self.remove(body[i + 1])
            self.edit(stmt, lambda new, plan=plan, body=body: self._backward_lines(plan, new, body))
            self.ctx.handled_nodes.add(call.func)  # the callee only: the loss converts as usual
            for j in between:
                self._plan_between(body[j], opts)

    def _plan_lone_clip(self, clip: cst.Call, rest, kinds, zeroed: Set[str]) -> None:
        """A clip with no backward before it in its block (HiSD: backward ran inside forward):
        its optimizer is the one stepped next."""
        for stmt, k in zip(rest, kinds):
            if k == "step" and self.is_optimizer(receiver(stmt_call(stmt)), zeroed):
                self.clip_opts[clip] = dotted_text(receiver(stmt_call(stmt)))
                self.ctx.handled(clip.func)
                return
            if k in ("backward", "zero_grad"):
                break
        self.marks[clip] = (_CLIP, "no optimizer step follows in this block: pass the optimizer "
                            "holding the gradients to shims.nn.clip_grad_norm_(..., optimizer=)")

    def _plan_between(self, stmt: cst.CSTNode, opts: List[str]) -> None:
        clip = self._is_clip(stmt)
        if clip is not None:
            if len(opts) != 1:
                self.marks[clip] = (_CLIP, "clips gradients that several optimizers consume: pass the "
                                    "optimizer holding them to shims.nn.clip_grad_norm_(..., optimizer=)")
            else:
                self.clip_opts[clip] = opts[0]
                self.ctx.handled(clip.func)
            return
        for n in walk(stmt):
            if isinstance(n, cst.Attribute) and n.attr.value == "grad":
                self.marks[n] = ("torch.Tensor.grad", GRAD_EDIT)

    # -- calls ---------------------------------------------------------------------------
    def _mark(self, original: cst.CSTNode) -> None:
        """Emit a planned mark now, so it lands on the node's own statement."""
        found = self.marks.pop(original, None)
        if found is not None:
            self.ctx.unsupported(original, found[0], found[1], code=CODE)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        self._mark(original)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        self._mark(original)
        opt = self.clip_opts.get(original)
        if opt is not None:
            last = updated.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            extra = cst.Arg(keyword=cst.Name("optimizer"), value=cst.parse_expression(opt),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace("")))
            return updated.with_changes(func=self.ctx.spell("shims.nn.clip_grad_norm_"),
                                        args=[*updated.args[:-1], last, extra])
        if original in self.zero_calls:
            self.ctx.note("optimizer.zero_grad(set_to_none=...): argument dropped (Jittor's zero_grad takes none)")
            return updated.with_changes(args=[])
        return updated

    # -- building (updated statements) --------------------------------------------------
    def _bare_backward(self, stmt: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        call = stmt_call(stmt)
        loss = _loss_text(call)
        retain = arg_value(call, "retain_graph")
        extra = f", retain_graph={code_of(retain)}" if retain is not None else ""
        return replace_line(stmt, f"{code_of(self.ctx.spell('shims.optim.backward'))}({loss}{extra})")

    def _backward_lines(self, plan: _Backward, stmt: cst.SimpleStatementLine,
                        original) -> List[cst.SimpleStatementLine]:
        call = stmt_call(stmt)
        loss = _loss_text(call)
        retain = arg_value(call, "retain_graph")
        if plan.fused_with is not None:
            zero_stmt, step_stmt = (original[i] for i in plan.fused_with)
            line = replace_line(step_stmt, f"{plan.optimizers[0]}.step({loss})")
            # the three lines' comments, in order, above the fused line
            lead = [*zero_stmt.leading_lines, *_trailing(zero_stmt), *comments_of(stmt),
                    *step_stmt.leading_lines]
            return [line.with_changes(leading_lines=lead)]
        lines = []
        for k, opt in enumerate(plan.optimizers):
            last = k == len(plan.optimizers) - 1
            extra = ""
            if not last:
                extra = ", retain_graph=True"
            elif retain is not None:
                extra = f", retain_graph={code_of(retain)}"
            line = replace_line(stmt, f"{opt}.backward({loss}{extra})", keep_comment=k == 0)
            if k > 0:
                line = line.with_changes(leading_lines=[])
            lines.append(line)
        return lines
