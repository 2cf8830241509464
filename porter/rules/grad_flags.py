"""Gradient flags: ``requires_grad_`` and ``.data``.

``x.requires_grad_(flag)`` on a tensor -> ``x.start_grad()`` / ``x.stop_grad()``.

Jittor Vars have no ``requires_grad_``; ``start_grad()``/``stop_grad()`` set the flag in place
and return the Var, so the expression keeps its value (``x.detach().requires_grad_(True)``, R1
penalties).  Only receivers that are tensors by construction are rewritten (a call of a torch
function, or a ``.detach()``/``.clone()``/... chain, or a slice of one); on a name the call is left as written: it
is right for modules (``shims.nn.Module.requires_grad_``); on a tensor it fails loudly
(AttributeError), never silently.  A flag that is not a literal is marked JT101.

``.data`` (Jittor's ``Var.data`` is a numpy array) followed by a tensor-method call:
``p.data.copy_(src)`` -> ``p.assign(src)``; ``p.data.mul_(k)`` (any in-place method) ->
``p.mul_(k)`` (Jittor's in-place updates are never recorded for autograd, like writes through
torch's ``.data``); ``w.data.norm()`` (any other method) -> ``w.detach().norm()``.  A bare
``x.data`` is left alone: the name is too common on non-tensors (``dataset.data``).
"""
from __future__ import annotations

import libcst as cst

from .base import Rule
from .common import code_of, method_name, positional, receiver

CODE = "JT101"
API = "torch.Tensor.requires_grad_"
_TENSOR_METHODS = ("detach", "clone", "float", "double", "half", "contiguous", "to", "view", "reshape",
                   "requires_grad_", "cpu", "cuda", "flatten")


class GradFlagRule(Rule):
    """Rewrite ``requires_grad_`` on tensors."""

    name = "grad_flags"
    identifiers = frozenset({"requires_grad_", "data"})

    def _is_tensor(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Subscript):
            return self._is_tensor(expr.value)
        if not isinstance(expr, cst.Call):
            return False
        q = self.ctx.qualname(expr.func)
        if q is not None:
            short = q.rsplit(".", 1)[-1]
            return q.count(".") == 1 and short[:1].islower()
        return method_name(expr) in _TENSOR_METHODS

    def _through_data(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``x.data.m(...)`` -> ``x.assign(...)`` / ``x.m_(...)`` / ``x.detach().m(...)``."""
        name = method_name(original)
        inner = updated.func.value  # type: ignore[union-attr]
        base = inner.value
        if name == "copy_":
            self.ctx.handled(original.func)
            return updated.with_changes(func=cst.Attribute(value=base, attr=cst.Name("assign")))
        if name.endswith("_"):
            return updated.with_changes(func=updated.func.with_changes(value=base))
        detached = cst.Call(func=cst.Attribute(value=base, attr=cst.Name("detach")))
        return updated.with_changes(func=updated.func.with_changes(value=detached))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if (self.ctx.qualname(func) or "").startswith("torch.nn.init.") and updated.args:
            # nn.init.f(x.data, ...) writes into x; Jittor's x.data is a numpy copy: pass x itself
            first = updated.args[0].value
            if isinstance(first, cst.Attribute) and first.attr.value == "data":
                args = [updated.args[0].with_changes(value=first.value), *updated.args[1:]]
                return updated.with_changes(args=args)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) \
                and func.value.attr.value == "data" and func.attr.value in self.ctx.table.methods \
                and self.ctx.qualname(func.value) is None and self.ctx.is_tensor_receiver(func.value.value):
            return self._through_data(original, updated)
        if method_name(original) != "requires_grad_" or self.ctx.qualname(original.func) is not None:
            return updated
        recv = receiver(original)
        if not self.ctx.is_tensor_receiver(recv):
            return updated
        self.ctx.handled(original.func)
        if not self._is_tensor(recv):
            self.ctx.note("x.requires_grad_(...) on a name left as is: right for modules "
                          "(shims.nn.Module.requires_grad_); a tensor needs x.start_grad() / x.stop_grad()")
            return updated
        flag = positional(original)[0].value if positional(original) else None
        for a in original.args:
            if a.keyword is not None and a.keyword.value == "requires_grad":
                flag = a.value
        text = "True" if flag is None else code_of(flag)
        if text not in ("True", "False"):
            self.ctx.warn(original, CODE, "the flag is not a literal: use x.start_grad() / x.stop_grad()", api=API)
            return updated
        method = "start_grad" if text == "True" else "stop_grad"
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name(method)), args=[])
