"""``torch.autograd.grad(...)`` -> ``jt.grad(loss, targets)`` with the same meaning.

torch differentiates ``sum_i <outputs_i, grad_outputs_i>`` w.r.t. ``inputs`` and returns a
tuple; ``jt.grad(loss, [x, ...])`` differentiates a scalar (a non-scalar loss is summed) and
returns a list for a list of targets.  So:

* ``grad_outputs=g`` becomes the loss ``(y * g).sum()`` (one term per output);
* a list/tuple of outputs becomes the sum of their terms;
* ``inputs`` is always passed as a sequence so indexing/unpacking the result works as in torch
  (a plain name ``x`` becomes ``x if isinstance(x, (list, tuple)) else [x]``: it may name a
  tensor or a list of tensors);
* ``create_graph``, ``retain_graph`` and ``only_inputs`` are dropped: Jittor's gradients are
  always differentiable (second-order penalties backpropagate through them) and ``jt.grad``
  keeps the graph;
* ``allow_unused=True`` is kept as a JT103 warning: Jittor returns zeros where torch returns None;
* ``is_grads_batched``/``materialize_grads`` are marked unsupported.

``torch.autograd.backward`` needs no rule: the table maps it to ``shims.autograd.backward``
(torch's signature, the gradient store).
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from .base import Rule
from .common import code_of

CODE = "JT103"
API = "torch.autograd.grad"
_PARAMS = ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs",
           "allow_unused", "is_grads_batched", "materialize_grads")
_SEQUENCE_CALLS = ("list", "tuple")


def _elements(expr: Optional[cst.BaseExpression]) -> Optional[List[cst.BaseExpression]]:
    """The elements of a list/tuple literal, or None when ``expr`` is not one."""
    if isinstance(expr, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement)
                                                           for e in expr.elements):
        return [e.value for e in expr.elements]
    return None


def _is_none(expr: Optional[cst.BaseExpression]) -> bool:
    return expr is None or (isinstance(expr, cst.Name) and expr.value == "None")


def _atom(expr: cst.BaseExpression) -> str:
    """Source text safe to use as an operand of ``*``."""
    text = code_of(expr)
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return text
    return f"({text})"


class AutogradGradRule(Rule):
    """Rewrite ``torch.autograd.grad`` calls into ``jt.grad``."""

    name = "autograd"
    identifiers = frozenset()  # torch uses only

    @classmethod
    def applies(cls, ctx) -> bool:
        return API in ctx.names.uses.values()

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.ctx.qualname(original.func) != API:
            return updated
        if any(a.star for a in updated.args) or len([a for a in updated.args if a.keyword is None]) > len(_PARAMS):
            self.ctx.unsupported(original, API, "*args/**kwargs hide which arguments are passed", code=CODE)
            return updated
        args = {}
        for i, a in enumerate(updated.args):
            key = a.keyword.value if a.keyword is not None else _PARAMS[i]
            args[key] = a.value
        for bad in ("is_grads_batched", "materialize_grads"):
            if bad in args and code_of(args[bad]) != "False":
                self.ctx.unsupported(original, API, f"{bad}= has no Jittor equivalent", code=CODE)
                return updated
        loss = self._loss(args.get("outputs"), args.get("grad_outputs"))
        targets = self._targets(args.get("inputs"))
        if loss is None or targets is None:
            self.ctx.unsupported(original, API, "outputs/grad_outputs/inputs of a form whose length "
                                 "is not known statically", code=CODE)
            return updated
        if "allow_unused" in args and code_of(args["allow_unused"]) != "False":
            self.ctx.warn(original, CODE, "allow_unused: Jittor returns zeros (not None) for inputs "
                          "the outputs do not depend on", api=API)
        dropped = [k for k in ("create_graph", "retain_graph", "only_inputs") if k in args]
        if dropped:
            self.ctx.note(f"{API}: dropped {', '.join(dropped)} (Jittor's gradients are always "
                          "differentiable and jt.grad keeps the graph)")
        self.ctx.handled(original.func)
        expr = cst.parse_expression(f"F({loss}, {targets})")
        assert isinstance(expr, cst.Call)
        return expr.with_changes(func=self.ctx.spell("jittor.grad"),
                                 lpar=updated.lpar, rpar=updated.rpar)

    @staticmethod
    def _loss(outputs, grad_outputs) -> Optional[str]:
        outs = _elements(outputs)
        if outs is None:
            if outputs is None:
                return None
            outs = [outputs]
            gos = [grad_outputs] if not _is_none(grad_outputs) else [None]
            if _elements(grad_outputs) is not None:
                return None  # one output, a list of weights: lengths unknown
        elif _is_none(grad_outputs):
            gos = [None] * len(outs)
        else:
            gos = _elements(grad_outputs)
            if gos is None:
                if len(outs) != 1:
                    return None
                gos = [grad_outputs]
            if len(gos) != len(outs):
                return None
        if len(outs) == 1 and _is_none(gos[0]):
            return code_of(outs[0])
        return " + ".join(_atom(o) if _is_none(g) else f"({_atom(o)} * {_atom(g)}).sum()"
                          for o, g in zip(outs, gos))

    @staticmethod
    def _targets(inputs) -> Optional[str]:
        if inputs is None:
            return None
        elems = _elements(inputs)
        if elems is not None:
            return "[" + ", ".join(code_of(e) for e in elems) + "]"
        if isinstance(inputs, cst.Call):
            func = inputs.func
            if (isinstance(func, cst.Name) and func.value in _SEQUENCE_CALLS) or \
                    (isinstance(func, cst.Attribute) and func.attr.value == "parameters"):
                return code_of(inputs)
            return None
        if isinstance(inputs, (cst.Name, cst.Attribute, cst.Subscript)):
            x = code_of(inputs)
            return f"{x} if isinstance({x}, (list, tuple)) else [{x}]"
        return None
