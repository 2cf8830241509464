"""``.data`` on tensors, and ``nn.init.f(x.data, ...)``.

``requires_grad_``, ``x.requires_grad = flag`` and ``x.requires_grad`` need no rewrite: importing
``shims`` gives Jittor's ``Var`` torch's ``requires_grad_`` and ``requires_grad`` (the gradient
store, :mod:`shims.autograd`), and modules have ``shims.nn.Module.requires_grad_``.

``.data`` (Jittor's ``Var.data`` is a numpy array) followed by a tensor-method call:
``p.data.copy_(src)`` -> ``p.assign(src)``; ``p.data.mul_(k)`` (any in-place method) ->
``p.mul_(k)`` (Jittor's in-place updates are never recorded for autograd, like writes through
torch's ``.data``); ``w.data.norm()`` (any other method) -> ``shims.data_of(w).norm()`` (a Var
detached; a dataset's own ``.data`` stays its own).  A bare
``x.data`` is left alone: the name is too common on non-tensors (``dataset.data``).
"""
from __future__ import annotations

import libcst as cst

from .base import Rule
from .common import method_name


class GradFlagRule(Rule):
    """Rewrite ``.data`` method chains on tensors."""

    name = "grad_flags"
    identifiers = frozenset({"data"})

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
        # shims.data_of: a Var detached, anything else its own ``.data`` (``self.dataset.data.numpy()``
        # is a dataset's array, never ``self.dataset.detach()``): the receiver is only a guess
        detached = cst.Call(func=self.ctx.spell("shims.data_of"), args=[cst.Arg(value=base)])
        return updated.with_changes(func=updated.func.with_changes(value=detached))

    def visit_Call(self, node: cst.Call) -> None:
        first = node.args[0].value if node.args else None
        if isinstance(first, cst.Attribute) and first.attr.value == "data" \
                and (self.ctx.qualname(node.func) or "").startswith("torch.nn.init."):
            self.ctx.handled_nodes.add(first)  # nn.init.f(x.data): leave_Call passes x itself

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
        return updated
