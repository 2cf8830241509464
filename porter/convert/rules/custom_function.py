"""A custom ``torch.autograd.Function`` -> ``shims.autograd.Function`` (a ``jt.Function`` whose
``grad`` may itself be differentiated, as torch differentiates a custom backward).

torch's ``forward(ctx, ...)``/``backward(ctx, grad)`` static methods become Jittor's instance
methods ``execute(self, ...)``/``grad(self, grad)``: the ``@staticmethod`` is dropped and the
``ctx`` parameter becomes the instance (its name is kept), so ``ctx.x = ...`` works unchanged.

* ``ctx.save_for_backward(a, b)`` -> ``ctx.saved_tensors = (a, b)``; ``ctx.saved_tensors`` and
  ``ctx.saved_variables`` reads then read that attribute;
* ``ctx.needs_input_grad``: the first statement of ``execute`` sets it from its inputs (Jittor
  hands ``execute`` gradient-tracked Vars for inputs that need a gradient, stop-grad ones as they are);
* ``Fn.apply(...)`` works as is (``jt.Function.apply``);
* ``@once_differentiable`` is removed (it only forbids a double backward);
* ``ctx.mark_non_differentiable``/``set_materialize_grads`` stay as written (methods of
  ``shims.autograd.Function`` with torch's meaning); ``ctx.mark_dirty`` has no Jittor form:
  marked JT103.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from ..context import walk
from .base import Rule
from .common import code_of

CODE = "JT103"
_BASES = ("torch.autograd.Function", "torch.autograd.function.Function")
_RENAMES = {"forward": "execute", "backward": "grad"}
_UNSUPPORTED_CTX = ("mark_dirty",)


def _is_staticmethod(d: cst.Decorator) -> bool:
    return isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"


class CustomFunctionRule(Rule):
    """Rewrite subclasses of ``torch.autograd.Function`` into ``shims.autograd.Function`` subclasses."""

    name = "custom_function"
    identifiers = frozenset({"save_for_backward", "saved_variables", *_UNSUPPORTED_CTX})

    @classmethod
    def applies(cls, ctx) -> bool:
        return any(q in _BASES for q in ctx.names.uses.values())

    def __init__(self, ctx):
        super().__init__(ctx)
        # enclosing scopes, innermost last: ("class", is a torch Function, uses needs_input_grad)
        # or ("def", the ctx parameter's name when it is a Function's forward/backward)
        self.scopes: List[tuple] = []

    def _in_function_class(self) -> bool:
        return bool(self.scopes) and self.scopes[-1][0] == "class" and self.scopes[-1][1]

    # -- class -----------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        is_fn = any(self.ctx.qualname(b.value) in _BASES for b in node.bases)
        nig = is_fn and any(isinstance(n, cst.Attribute) and n.attr.value == "needs_input_grad"
                            for n in walk(node))
        self.scopes.append(("class", is_fn, nig))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        _, is_fn, _ = self.scopes.pop()
        if not is_fn:
            return updated
        bases = []
        for orig, new in zip(original.bases, updated.bases):
            if self.ctx.qualname(orig.value) in _BASES:
                self.ctx.handled(orig.value)
                new = new.with_changes(value=self.ctx.spell("shims.autograd.Function"))
            bases.append(new)
        return updated.with_changes(bases=bases)

    # -- methods ---------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = None
        if self._in_function_class() and node.name.value in _RENAMES:
            params = node.params.params
            name = params[0].name.value if params else None
        self.scopes.append(("def", name, self._in_function_class() and self.scopes[-1][2]))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        _, ctx_name, nig = self.scopes.pop()
        if ctx_name is None:
            return updated
        decorators = []
        for d in updated.decorators:
            if _is_staticmethod(d):
                continue
            if code_of(d.decorator).endswith("once_differentiable"):
                # it only forbids differentiating the backward; Jittor's grad runs as written
                self.ctx.note("@once_differentiable removed (Jittor has no equivalent; it only "
                              "forbids double backward)")
                continue
            decorators.append(d)
        if not any(_is_staticmethod(d) for d in updated.decorators):
            self.ctx.unsupported(original, "torch.autograd.Function", f"{original.name.value} is not a "
                                 "@staticmethod (legacy Function): convert by hand", code=CODE)
            return updated
        new = updated.with_changes(decorators=decorators, name=cst.Name(_RENAMES[original.name.value]))
        if original.name.value == "forward" and nig:
            new = self._with_needs_input_grad(new, ctx_name)
        return new

    def _with_needs_input_grad(self, fn: cst.FunctionDef, ctx_name: str) -> cst.FunctionDef:
        inputs = [p.name.value for p in fn.params.params[1:]]
        if fn.params.star_arg is not None and isinstance(fn.params.star_arg, cst.Param):
            seq = f"({', '.join(inputs)}{', ' if inputs else ''}*{fn.params.star_arg.name.value})"
        else:
            seq = f"({', '.join(inputs)}{',' if len(inputs) == 1 else ''})"
        jt = cst.Module([]).code_for_node(self.ctx.spell("jittor.Var"))
        stmt = cst.parse_statement(f"{ctx_name}.needs_input_grad = tuple(isinstance(a, {jt}) and not "
                                   f"a.is_stop_grad() for a in {seq})")
        body = fn.body
        assert isinstance(body, cst.IndentedBlock)
        first = 1 if body.body and _is_docstring(body.body[0]) else 0
        return fn.with_changes(body=body.with_changes(body=[*body.body[:first], stmt, *body.body[first:]]))

    # -- ctx calls -------------------------------------------------------------------------
    def _ctx_name(self) -> Optional[str]:
        return self.scopes[-1][1] if self.scopes and self.scopes[-1][0] == "def" else None

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        name = self._ctx_name()
        call = updated.value
        if name is None or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return updated
        func = call.func
        if not (isinstance(func.value, cst.Name) and func.value.value == name):
            return updated
        if func.attr.value == "save_for_backward":
            if any(a.star or a.keyword for a in call.args):
                return updated
            values = ", ".join(code_of(a.value) for a in call.args)
            if len(call.args) == 1:
                values += ","
            new = cst.parse_statement(f"{name}.saved_tensors = ({values})").body[0]
            return new.with_changes(semicolon=updated.semicolon)
        if func.attr.value in _UNSUPPORTED_CTX:
            self.ctx.unsupported(original, f"torch.autograd.function.FunctionCtx.{func.attr.value}",
                                 "no Jittor equivalent", code=CODE)
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = self._ctx_name()
        if name is not None and original.attr.value == "saved_variables" and \
                isinstance(original.value, cst.Name) and original.value.value == name:
            return updated.with_changes(attr=cst.Name("saved_tensors"))
        return updated


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
