"""Writes through a view: torch changes the viewed tensor; the port does too (shims.views).

In torch ``y = x.detach()``, ``y = x.view(...)``, ``y = x[:, :2]``, ... share ``x``'s storage, so
a later ``y[i] = v``, ``y += v`` or ``y.add_(v)`` changes ``x`` too.  A Jittor Var never shares
storage; ``shims.views`` records on each view op's result what it views and writes every in-place
change of it back, so most of this needs no rewrite (docs/views.md).  What the converter does:

* ``x.detach()``/``x.data`` written into, by name (``y = x.detach(); y[0] = 5``) or in one
  expression (``x.detach().mul_(0)``), becomes ``shims.views.detach_view(x)``: at run time a
  ``detach()`` keeps its base only outside autograd graphs (keeping a graph node would keep its
  graph alive), and the converter knows this one is written;
* a write into a view the runtime cannot follow (``as_strided``, ``unfold``) is marked (JT107);
* ``nn.init.normal_(w[:, :3], ...)`` as a statement becomes ``w[:, :3] = <the converted init
  call>`` (every init target returns the Var it filled).
"""
from __future__ import annotations

from typing import Dict, Sequence

import libcst as cst

from ..names import dotted
from .base import Rule
from .common import BlockRule, arg_value, code_of, dotted_text, method_name, receiver, stmt_call

CODE = "JT107"
#: torch methods whose result shares the receiver's storage
VIEW_METHODS = frozenset({"detach", "view", "view_as", "reshape", "t", "transpose", "permute", "squeeze",
                          "unsqueeze", "narrow", "select", "diagonal", "expand", "expand_as", "unflatten",
                          "movedim", "swapaxes", "as_strided", "unfold"})
#: of those, the views shims.views cannot write back (marked)
UNFOLLOWED = frozenset({"as_strided", "unfold"})
DETACH_VIEW = "shims.views.detach_view"
#: in-place methods that are no writes to the values
_NOT_WRITES = frozenset({"requires_grad_", "retain_grad_", "share_memory_", "detach_"})


def _smalls(stmt) -> Sequence[cst.BaseSmallStatement]:
    """The small statements of a line (``y = x.detach(); y[0] = 5`` has two)."""
    return stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()


def _view_of(value: cst.BaseExpression):
    """(base expression, method) when ``value`` is ``base.<view method>(...)`` of a plain name
    base, or ``base.data``/``base.detach()`` of a dotted base (``w = net.weight.data``)."""
    if isinstance(value, cst.Attribute) and value.attr.value == "data" and dotted(value.value) is not None:
        return value.value, "data"
    if not isinstance(value, cst.Call):
        return None
    name = method_name(value)
    base = receiver(value)
    if name in VIEW_METHODS and (isinstance(base, cst.Name) or (name == "detach" and dotted(base) is not None)):
        return base, name
    return None


def _written_name(small) -> str | None:
    """The name a statement writes into: ``y[...] = v``, ``y[...] += v``, ``y += v``, ``y.add_(v)``."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
    elif isinstance(small, cst.AugAssign):
        target = small.target
        if isinstance(target, cst.Name):
            return target.value
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        name = method_name(small.value)
        base = receiver(small.value)
        if name and name.endswith("_") and not name.startswith("_") and name not in _NOT_WRITES \
                and isinstance(base, cst.Name):
            return base.value
        return None
    else:
        return None
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        return target.value.value
    return None


def _written_expr(small) -> cst.BaseExpression | None:
    """The expression a statement writes into: ``E`` of ``E[...] = v``, ``E[...] += v``, ``E.op_(a)``."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        return target.value if isinstance(target, cst.Subscript) else None
    if isinstance(small, cst.AugAssign):
        return small.target.value if isinstance(small.target, cst.Subscript) else None
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        name = method_name(small.value)
        if name and name.endswith("_") and not name.startswith("_") and name not in _NOT_WRITES:
            return receiver(small.value)
    return None


def _chain(expr):
    """``expr`` and the receivers/subscripted values it is built on (``x.view(-1)[:3]``: the
    subscript, ``x.view(-1)``, ``x.view``... down to ``x``)."""
    while expr is not None:
        yield expr
        if isinstance(expr, cst.Call):
            expr = expr.func
        elif isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        else:
            return


def _is_detach(node) -> bool:
    """``E.detach()`` (no arguments), ``E.data`` or its converted ``shims.data_of(E)``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        return True
    if not isinstance(node, cst.Call):
        return False
    if dotted_text(node.func) == "shims.data_of":
        return True
    return method_name(node) == "detach" and not node.args


class _DetachedViews(cst.CSTTransformer):
    """``E.detach()`` / ``shims.data_of(E)`` in the written part -> ``shims.views.detach_view(E)``."""

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if dotted_text(updated.func) == "shims.data_of" and len(updated.args) == 1:
            base = updated.args[0].value
        elif method_name(updated) == "detach" and not updated.args:
            base = receiver(updated)
        else:
            return updated
        return cst.parse_expression(f"{DETACH_VIEW}()").with_changes(args=[cst.Arg(base)])


def _detached_views(new):
    """Rewrite the detaching calls of a converted statement into recorded detached views."""
    return [new.visit(_DetachedViews())]


class ViewWriteRule(BlockRule, Rule):
    """Mark writes into a torch view of a tensor (torch writes through; Jittor copies)."""

    name = "views"
    identifiers = frozenset()  # works on blocks (plan), never on one statement

    def _mark(self, stmt, message: str, api: str) -> None:
        """Mark ``stmt`` as it stands in the output (the edit sees the converted statement)."""
        def mark(new):
            self.ctx.warn(new, CODE, message, api=api, at=stmt)
            return [new]
        self.edit(stmt, mark)

    def plan(self, body: Sequence[cst.BaseStatement]) -> None:
        views: Dict[str, tuple] = {}  # view name -> (base code, method, the statement that made it)
        for stmt in body:
            self._init_into_slice(stmt)
            for small in _smalls(stmt):
                self._detached_receiver(stmt, small)
                self._track(stmt, small, views)

    def _track(self, stmt, small, views: Dict[str, tuple]) -> None:
        """Follow one small statement: a write into a tracked view makes its ``detach``/``.data``
        a recorded one, or is marked; an assignment starts (a view) or ends (any other value)
        the tracking of its name."""
        written = _written_name(small)
        if written in views:
            base, method, made_at = views.pop(written)
            if method in ("detach", "data"):
                self.edit(made_at, _detached_views)
            elif method in UNFOLLOWED:
                self._mark(stmt, f"{written} = {base}.{method}(...) shares {base}'s storage in torch, so this "
                           f"write changes {base} too; the port's {method} is a copy and {base} stays "
                           f"unchanged: write into {base} itself if the code relies on it", f"torch.Tensor.{method}")
            return
        if isinstance(small, cst.Assign):
            for t in small.targets:
                if isinstance(t.target, cst.Name):
                    views.pop(t.target.value, None)
            view = _view_of(small.value)
            if view is not None and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and (view[1] in ("data", "detach") or self.ctx.is_tensor_receiver(view[0])):
                views[small.targets[0].target.value] = (code_of(view[0]), view[1], stmt)

    def _detached_receiver(self, stmt, small) -> None:
        """``x.detach().op_(a)``, ``x.detach()[i] = v``: the written ``detach()`` records ``x``."""
        target = _written_expr(small)
        if target is None or not any(_is_detach(n) for n in _chain(target)):
            return
        self.edit(stmt, _detached_views)

    def _init_into_slice(self, stmt) -> None:
        """``torch.nn.init.<fn>(w[idx], ...)`` as a statement -> ``w[idx] = <converted call>``."""
        call = stmt_call(stmt)
        qual = self.ctx.qualname(call.func) if call is not None else None
        target = arg_value(call, "tensor", 0) if qual else None
        if not qual or not qual.startswith("torch.nn.init.") or qual == "torch.nn.init.calculate_gain" \
                or not isinstance(target, cst.Subscript) or dotted(target.value) is None:
            return  # w.split(2)[1] is an item of a tuple: no target (shims.views writes it through)

        def assign(new):
            small = new.body[0] if isinstance(new, cst.SimpleStatementLine) and len(new.body) == 1 else None
            converted = small.value if isinstance(small, cst.Expr) else None
            target = arg_value(converted, "var", 0) or arg_value(converted, "tensor", 0) \
                if isinstance(converted, cst.Call) else None
            if not isinstance(target, cst.Subscript):
                return [new]
            return [new.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)], value=converted)])]
        self.edit(stmt, assign)
