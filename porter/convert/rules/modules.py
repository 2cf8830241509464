"""``nn.Module`` subclasses: ``forward`` -> ``execute``, and plain tensor attributes.

Only classes that derive from a torch module class (``torch.nn.*``, ``torchvision.models.*``),
directly or through classes of the same file, are touched:

* ``def forward`` -> ``def execute``; ``self.forward(...)``, ``super().forward(...)`` and
  ``Base.forward(self, ...)`` (``Base`` a module class of this file) follow.  A free function
  or a non-module class named ``forward`` is left alone.
* a tensor attribute torch never trains (``self.weight = None`` in ``__init__`` that another
  network fills every step, HiSD's AdaIN; ``self.k = torch.ones(3)``) would be a trainable
  parameter in Jittor: its ``__init__`` assignment becomes ``self.set_tensor_attr("k", ...)``
  (``shims.nn.Module``), after which plain assignments keep it a non-parameter.  Names the
  class also registers as parameter/buffer/module are left alone.

``nn.Parameter(t)`` in a module class's ``__init__`` -> ``t.start_grad()`` (every Var attribute
``__init__`` sets is a parameter; ``start_grad`` makes sure it is trained even if ``t`` was
gradient-stopped), and ``nn.Parameter(t, requires_grad=False)`` -> ``t.stop_grad()``.  Anywhere
else (a lazily built parameter, a helper function) -> ``shims.nn.parameter(t[, flag])``, which
marks the Var: ``shims.nn.Module`` keeps a Var assigned after ``__init__`` as state only when it
is a Parameter, as torch does (a trainer's ``self.loss = ...`` stays a plain attribute).

Buffers (``register_buffer(name, t, persistent=...)``), ``register_parameter``, torch's
``eval()`` (gradients keep flowing) and ``requires_grad_`` need no rewrite: converted modules
derive from ``shims.nn.Module`` (the table's ``torch.nn.Module`` row), which implements them.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

import libcst as cst

from ..context import walk
from ..names import dotted
from .base import Rule
from .common import code_of

_MODULE_ROOTS = ("torch.nn.", "torchvision.models.")
_NOT_CLASSES = ("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.")
_SHIMS_BASES = ("torch.nn.Module", "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
                "torch.nn.modules.module.Module")
_PARAMETER = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")
CODE = "JT101"
_REGISTER = ("register_buffer", "register_parameter", "add_module", "register_module")


def _self_attr(target: cst.BaseExpression) -> Optional[str]:
    """``self.name`` -> ``"name"``."""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
            and target.value.value == "self":
        return target.attr.value
    return None


class ModuleRule(Rule):
    """forward -> execute in torch module subclasses; non-parameter tensor attributes."""

    name = "modules"
    identifiers = frozenset({"forward", "None"})  # self.x = None: a tensor attribute

    def __init__(self, ctx):
        super().__init__(ctx)
        self.module_classes: Set[str] = set()
        self.tensor_attrs: Dict[cst.ClassDef, Set[str]] = {}
        self.unconverted_attrs: Dict[cst.ClassDef, Set[str]] = {}  # on classes built on a Jittor layer
        self.stack: List[Optional[cst.ClassDef]] = []   # enclosing class (None for a def)
        self.method: List[str] = []

    # -- which classes are modules ---------------------------------------------------------
    def _is_module_base(self, base: cst.BaseExpression) -> bool:
        q = self.ctx.qualname(base)
        if q is not None:
            return q.startswith(_MODULE_ROOTS) and not q.startswith(_NOT_CLASSES)
        return isinstance(base, cst.Name) and base.value in self.module_classes

    def visit_Module(self, node: cst.Module) -> None:
        classes = [n for n in self.ctx.statements_in(node) if type(n) is cst.ClassDef]
        changed = True
        while changed:  # a class may derive from one defined later in the file
            changed = False
            for c in classes:
                if c.name.value not in self.module_classes and \
                        any(self._is_module_base(b.value) for b in c.bases):
                    self.module_classes.add(c.name.value)
                    changed = True
        # set_tensor_attr is shims.nn.Module's: only classes built on it (not on a Jittor layer)
        shims_based: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for c in classes:
                if c.name.value not in shims_based and any(
                        self.ctx.qualname(b.value) in _SHIMS_BASES
                        or (isinstance(b.value, cst.Name) and b.value.value in shims_based) for b in c.bases):
                    shims_based.add(c.name.value)
                    changed = True
        for c in classes:
            if c.name.value in self.module_classes:
                attrs = self._tensor_attrs(c)
                if c.name.value in shims_based:
                    self.tensor_attrs[c] = attrs
                else:
                    self.unconverted_attrs[c] = attrs

    def _tensor_attrs(self, cls: cst.ClassDef) -> Set[str]:
        """Attributes ``__init__`` sets to None or to a new torch tensor, never registered."""
        candidates: Set[str] = set()
        registered: Set[str] = set()
        for fn in cls.body.body:
            if not isinstance(fn, cst.FunctionDef):
                continue
            for n in walk(fn):
                if isinstance(n, cst.Assign):
                    for t in n.targets:
                        name = _self_attr(t.target)
                        if name is None:
                            continue
                        if fn.name.value == "__init__" and self._tensor_value(n.value):
                            candidates.add(name)
                        elif not self._tensor_value(n.value) and not _is_plain_value(n.value):
                            registered.add(name)  # a module, a Parameter, or unknown
                elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) \
                        and n.func.attr.value in _REGISTER and n.args \
                        and isinstance(n.args[0].value, cst.SimpleString):
                    registered.add(n.args[0].value.evaluated_value)
        return candidates - registered

    def _tensor_value(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Name) and value.value == "None":
            return True
        if isinstance(value, cst.Call):
            q = self.ctx.qualname(value.func) or ""
            return q.startswith("torch.") and q.count(".") == 1 and q[6:7].islower()
        return False

    # -- scopes ----------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node if node.name.value in self.module_classes else None)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.stack.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.method.append(node.name.value if self.stack and self.stack[-1] is not None else "")
        self.stack.append(None)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.stack.pop()
        self.method.pop()
        if self.stack and self.stack[-1] is not None and original.name.value == "forward":
            return updated.with_changes(name=cst.Name("execute"))
        return updated

    def _module_class(self) -> Optional[cst.ClassDef]:
        """The module class whose method we are in (directly), or None."""
        if len(self.stack) >= 2 and self.stack[-1] is None and self.method and self.method[-1]:
            return self.stack[-2]
        return None

    # -- nn.Parameter ----------------------------------------------------------------------
    def _parameter(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``nn.Parameter(t[, requires_grad])`` in ``__init__`` -> ``t.start_grad()`` /
        ``t.stop_grad()``; a flag that is no literal, or a call outside ``__init__`` ->
        ``shims.nn.parameter(t[, flag])``."""
        if not updated.args or updated.args[0].keyword is not None or updated.args[0].star:
            return updated
        flag = "True"
        for _i, a in enumerate(updated.args[1:]):
            if a.keyword is None or a.keyword.value == "requires_grad":
                flag = code_of(a.value)
        value = updated.args[0].value
        in_init = self._module_class() is not None and self.method[-1] == "__init__"
        if flag not in ("True", "False") or not in_init:  # shims.nn.parameter decides, and marks
            self.ctx.handled(original.func)
            args = [cst.Arg(value.with_changes(lpar=[], rpar=[]) if value.lpar else value)]
            if flag != "True":
                args = [args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(cst.parse_expression(flag))]
            return cst.Call(func=self.ctx.spell("shims.nn.parameter"), args=args)
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.ctx.handled(original.func)
        method = "start_grad" if flag == "True" else "stop_grad"
        return cst.Call(func=cst.Attribute(value=value, attr=cst.Name(method)))

    # -- forward calls ---------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.ctx.qualname(original.func) in _PARAMETER:
            return self._parameter(original, updated)
        func = original.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "forward") or self._module_class() is None:
            return updated
        base = func.value
        target = dotted(base)
        is_super = isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "super"
        if is_super or target == ["self"] or (target is not None and len(target) == 1
                                               and target[0] in self.module_classes):
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("execute")))
        return updated

    # -- tensor attributes -----------------------------------------------------------------
    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        cls = self._module_class()
        if cls is None or self.method[-1] != "__init__" or len(original.targets) != 1:
            return updated
        name = _self_attr(original.targets[0].target)
        if name is not None and name in self.unconverted_attrs.get(cls, ()) and \
                not (isinstance(original.value, cst.Name) and original.value.value == "None"):
            self.ctx.warn(original, CODE, f"self.{name} becomes a trainable Jittor parameter (torch: a plain "
                          "tensor); derive the class from shims.nn.Module or use register_buffer", api=name)
        if name is None or name not in self.tensor_attrs.get(cls, ()):
            return updated
        call = cst.parse_expression(f'self.set_tensor_attr("{name}", None)')
        assert isinstance(call, cst.Call)
        call = call.with_changes(args=[call.args[0], call.args[1].with_changes(value=updated.value)])
        self.ctx.note(f"{cls.name.value}.{name}: a tensor attribute torch does not train; kept out of "
                      "parameters()/state_dict() with shims.nn.Module.set_tensor_attr")
        return cst.Expr(call, semicolon=updated.semicolon)


def _is_plain_value(value: cst.BaseExpression) -> bool:
    """Literals and arithmetic on names: values that are never modules or parameters."""
    return isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString,
                              cst.ConcatenatedString, cst.Name, cst.Attribute, cst.BinaryOperation,
                              cst.UnaryOperation, cst.Comparison, cst.BooleanOperation,
                              cst.Tuple, cst.List, cst.Dict, cst.Subscript))
