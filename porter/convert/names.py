"""Which local names mean torch things: one cheap pass over a module.

Resolves ``import torch``, ``import torch as th``, ``import torch.nn as nn``,
``from torch import nn, optim``, ``from torch.nn import functional as F``,
``from torch.nn import Conv2d``, ``import torchvision.transforms as T`` and local names that
shadow an import (parameters, assignments, loop targets, ...), scope by scope in source order.

It never matches on a name's spelling: ``np.zeros(3).reshape`` is not torch because ``np`` is
bound to numpy.  This replaces libcst's ``QualifiedNameProvider`` (about 7x the parse time)
with a single pass (a :class:`porter.convert.traverse.Visitor`, which skips whitespace and
punctuation) that only tracks import bindings.
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from ..mapping import TORCH_ROOTS
from .traverse import Visitor

#: torch modules (as opposed to classes/functions) that code imports by name.
TORCH_MODULES = frozenset({
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
    "torch.nn.parallel", "torch.nn.modules", "torch.optim", "torch.optim.lr_scheduler",
    "torch.utils", "torch.utils.data", "torch.utils.data.distributed", "torch.autograd",
    "torch.linalg", "torch.cuda", "torch.cuda.amp", "torch.backends", "torch.backends.cudnn",
    "torch.distributed", "torch.fft", "torch.special", "torch.jit", "torch.multiprocessing",
    "torch.hub", "torch.random", "torch.amp", "torch.fx", "torch.compiler", "torch._dynamo",
    "torchvision", "torchvision.transforms", "torchvision.transforms.functional",
    "torchvision.utils", "torchvision.models", "torchvision.datasets", "torchvision.ops",
    "torchvision.io",
})

#: torch modules with a Jittor (or shims) module of the same shape: an alias of one keeps its
#: name in converted code (``import torch.nn as nn`` -> ``from jittor import nn``,
#: ``from torchvision import transforms`` -> ``from shims.vision import transforms``).
NATURAL_MODULES = {
    "torch": "jittor",
    "torch.nn": "jittor.nn",
    "torch.nn.functional": "jittor.nn",
    "torch.nn.init": "jittor.init",
    "torch.optim": "jittor.optim",
    "torch.optim.lr_scheduler": "jittor.lr_scheduler",
    "torch.linalg": "jittor.linalg",
    "torchvision.transforms": "shims.vision.transforms",
    "torchvision.transforms.functional": "shims.vision.functional",
    "torchvision.datasets": "shims.vision.datasets",
}

#: libraries whose functions never return torch tensors or modules
NON_TENSOR_LIBRARIES = frozenset({
    "numpy", "math", "cmath", "os", "sys", "re", "json", "pathlib", "glob", "shutil", "time",
    "random", "itertools", "functools", "collections", "typing", "string", "pickle", "argparse",
    "logging", "copy", "datetime", "PIL", "cv2", "scipy", "pandas", "imageio", "skimage",
    "matplotlib", "tqdm", "yaml", "csv", "io", "struct", "subprocess", "warnings",
    # converted code: Jittor's and shims' own calls are never re-converted (idempotence)
    "jittor", "shims",
})

#: of those, the libraries whose results (and what is computed from them) are never torch
#: objects: not ``copy``/``random``/``itertools``/``functools``, which return the user's own
#: objects (``random.choice(tensors)``), nor Jittor's/shims' Vars
_VALUE_LIBRARIES = frozenset({
    "numpy", "math", "cmath", "os", "re", "json", "pathlib", "glob", "time", "string", "argparse",
    "datetime", "PIL", "cv2", "scipy", "pandas", "imageio", "skimage", "matplotlib", "yaml", "csv",
    "struct",
})

#: builtins whose result is never a tensor (``a = list(...)``; ``a.index(3)`` stays numpy/list)
_NON_TENSOR_CALLS = frozenset({
    "list", "dict", "set", "tuple", "str", "int", "float", "bool", "bytes", "frozenset", "range",
    "sorted", "len", "zip", "enumerate", "open", "object", "repr", "format", "map", "filter",
})

#: non-torch modules some rule rewrites in files that use torch (``pickle.load`` ->
#: ``shims.pickle.load``): their uses are recorded in ``TorchNames.library_uses``
TRACKED_LIBRARIES = frozenset({"pickle"})

_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer,
             cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set, cst.ListComp,
             cst.DictComp, cst.SetComp, cst.GeneratorExp)


def is_torch_name(qualname: str) -> bool:
    """True when a qualified name lies in torch or torchvision."""
    return qualname.split(".", 1)[0] in TORCH_ROOTS


def dotted(expr: cst.BaseExpression) -> Optional[List[str]]:
    """``a.b.c`` -> ``["a", "b", "c"]``; None when ``expr`` is not a plain dotted chain."""
    parts: List[str] = []
    while type(expr) is cst.Attribute:  # exact types: isinstance on libcst's ABC classes is slow
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not cst.Name:
        return None
    parts.append(expr.value)
    return parts[::-1]


def chain_head(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """The ``Name`` at the head of a dotted chain, or None."""
    while type(expr) is cst.Attribute:
        expr = expr.value
    return expr if type(expr) is cst.Name else None


def dotted_name_of(node: cst.BaseExpression) -> str:
    """The dotted text of an import's module/name expression (``torch.nn``)."""
    parts = dotted(node)
    return ".".join(parts) if parts else ""


@dataclass
class ImportBinding:
    """One name an import statement binds."""

    local: str          # the name bound in the file (``nn``, ``F``, ``torch``)
    qualname: str       # what it means (``torch.nn``, ``torch.nn.functional``, ``torch``)
    is_module: bool     # a module (vs a class/function imported by name)
    from_import: bool   # ``from X import Y`` (vs ``import X``)


@dataclass
class ImportRecord:
    """A torch import statement and the bindings it makes."""

    node: cst.CSTNode   # cst.Import or cst.ImportFrom
    bindings: List[ImportBinding]
    star: bool = False
    top_level: bool = True
    #: a resolved star import's names that are not torch's, used by the file: local -> origin
    #: (``math`` -> ``math``, ``Optional`` -> ``typing.Optional``)
    python_names: Dict[str, str] = field(default_factory=dict)
    #: an ``import numpy as np, torch`` statement's other modules, as written (``numpy as np``):
    #: kept whatever the torch names become
    foreign_aliases: List[str] = field(default_factory=list)


@dataclass
class TorchNames:
    """The result of :func:`resolve` for one module."""

    #: every torch reference: the outermost Name/Attribute of a dotted chain -> qualified name
    uses: Dict[cst.CSTNode, str] = field(default_factory=dict)
    #: the head Name of each torch chain -> the binding's qualified name
    heads: Dict[cst.Name, ImportBinding] = field(default_factory=dict)
    #: Name nodes bound to a non-torch import (``np``, ``os``): never tensor receivers
    foreign_heads: Set[cst.Name] = field(default_factory=set)
    #: Name nodes that are not tensors themselves: any other import (``from . import ops``),
    #: names last bound to a literal, a builtin's or a non-torch library's result
    not_tensor_names: Set[cst.Name] = field(default_factory=set)
    #: ``self.<attr>`` names a class assigns a module or layer (``self.relu = nn.ReLU()``)
    module_attrs: Set[str] = field(default_factory=set)
    #: calls whose result is no tensor (``sorted(b)``, ``list(x)``)
    not_tensor_calls: Set[cst.Call] = field(default_factory=set)
    #: tensor-method calls (func Attribute) and reads of tensor data attributes the Var lacks
    #: or defines differently (the Attribute) -> ``torch.Tensor.m``
    method_uses: Dict[cst.Attribute, str] = field(default_factory=dict)
    #: uses of a TRACKED_LIBRARIES module: the outermost Name/Attribute -> qualified name
    #: (``pickle.Unpickler``); their heads are in ``foreign_heads`` too
    library_uses: Dict[cst.CSTNode, str] = field(default_factory=dict)
    #: func expressions of calls (so rules can tell a callee from a plain reference)
    call_funcs: Set[cst.CSTNode] = field(default_factory=set)
    imports: List[ImportRecord] = field(default_factory=list)
    #: simple statements holding a torch use or an identifier some rule reacts to;
    #: None when every statement must be visited (a rule declared no identifiers)
    hot_statements: Optional[Set[cst.SimpleStatementLine]] = None
    #: string literals that are exactly a dotted torch name (``'torch.optim.Adam'``, a class a
    #: config names for a run-time import) -> that name
    name_strings: Dict[cst.SimpleString, str] = field(default_factory=dict)

    @property
    def has_torch(self) -> bool:
        """True when the module imports torch or torchvision anywhere."""
        return bool(self.imports)

    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """The torch qualified name of a Name/Attribute chain, or None.

        Works on nodes of the original tree (rules see them as ``original_node``) and on
        unchanged subtrees of the transformed one.
        """
        parts = dotted(expr)
        if parts is None:
            return None
        head = chain_head(expr)
        binding = self.heads.get(head)
        if binding is None:
            return None
        return ".".join([binding.qualname, *parts[1:]])

    def binding_of(self, expr: cst.BaseExpression) -> Optional[ImportBinding]:
        """The import binding at the head of a torch chain, or None."""
        head = chain_head(expr)
        return self.heads.get(head) if head is not None else None

    def is_tensor_receiver(self, expr: cst.BaseExpression) -> bool:
        """False for receivers that clearly are not tensors: literals, non-torch modules
        and torch modules/functions themselves (``torch.cat`` is not a method call), and
        expressions computed from a non-torch module (``np.zeros(3).reshape(3)``)."""
        if isinstance(expr, _LITERALS):
            return False
        if isinstance(expr, cst.Name) and (expr.value in ("self", "cls") or expr in self.not_tensor_names):
            return False
        if expr in self.not_tensor_calls:
            return False
        if (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.value.value == "self" and expr.attr.value in self.module_attrs):
            return False
        if self.qualname(expr) is not None:
            return False
        root = _root_of(expr)
        if isinstance(root, _LITERALS):
            return False
        return not (isinstance(root, cst.Name) and root in self.foreign_heads)


_CHAIN_LINKS = frozenset({cst.Call, cst.Attribute, cst.Subscript})


def _root_of(value: cst.BaseExpression) -> cst.BaseExpression:
    """The innermost receiver or callee of a call/attribute/subscript chain."""
    while type(value) in _CHAIN_LINKS:
        value = value.func if type(value) is cst.Call else value.value
    return value


def _top_level_targets(stmt: cst.BaseStatement) -> List[str]:
    """Plain names a module-level simple statement (or an ``if``/``try`` around one) binds."""
    out: List[str] = []
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    out.extend(_names_in_target(t.target))
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                out.extend(_names_in_target(small.target))
            elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    local = alias.asname.name if alias.asname else alias.name
                    out.append(dotted_name_of(local).split(".", 1)[0])
    elif isinstance(stmt, (cst.If, cst.Try)):
        blocks = [stmt.body]
        if isinstance(stmt, cst.Try):
            blocks.extend(h.body for h in stmt.handlers)
        elif stmt.orelse is not None:
            blocks.append(stmt.orelse.body)
        for block in blocks:
            if isinstance(block, cst.IndentedBlock):
                for inner in block.body:
                    if isinstance(inner, (cst.FunctionDef, cst.ClassDef)):
                        out.append(inner.name.value)
                    out.extend(_top_level_targets(inner))
    return out


def _names_in_target(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _names_in_target(el.value)]
    if isinstance(target, cst.StarredElement):
        return _names_in_target(target.value)
    return []


#: ``torch.nn`` classes whose instances are tensors (``self.weight = nn.Parameter(...)``)
_TENSOR_CLASSES = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})


class _Scope:
    __slots__ = ("names", "is_class", "in_except")

    def __init__(self, is_class: bool = False):
        self.names: Dict[str, Optional[ImportBinding]] = {}
        self.is_class = is_class
        self.in_except = 0  # >0 inside an except handler of this scope


_FOREIGN = ImportBinding("", "", True, False)  # marker binding for non-torch imports
_LIBRARY = ImportBinding("", "", True, False)  # an import of one of _VALUE_LIBRARIES (``np``, ``PIL``)
_LIBRARY_VALUE = ImportBinding("", "", False, False)  # a name bound to a value computed from one
_FOREIGN_LIKE = (_FOREIGN, _LIBRARY, _LIBRARY_VALUE)
_NOT_TENSOR = ImportBinding("", "", False, False)  # marker: the name itself is no tensor


class _Tracked(ImportBinding):
    """A binding to a TRACKED_LIBRARIES module or one of its names (a non-torch import)."""


def _foreign_binding(module: str, local: str, qualname: str, is_module: bool) -> ImportBinding:
    """The binding a non-torch import makes for ``local``."""
    root = module.split(".", 1)[0]
    if root in TRACKED_LIBRARIES:
        return _Tracked(local, qualname, is_module, not is_module)
    return _LIBRARY if root in _VALUE_LIBRARIES else _FOREIGN


#: a string that is a dotted torch name and nothing else (``"torch.optim.Adam"``)
_DOTTED_TORCH = re.compile(r"(?:torch|torchvision)(?:\.[A-Za-z_]\w*)+")


class _Resolver(Visitor):
    def __init__(self, method_names: Sequence[str], identifiers: Optional[FrozenSet[str]],
                 star: Mapping[str, Mapping[str, str]], attribute_names: FrozenSet[str],
                 third_party: FrozenSet[str] = frozenset()):
        super().__init__()
        self.out = TorchNames()
        self.third_party = third_party
        self.roots = frozenset(TORCH_ROOTS) | {a.split(".", 1)[0] for a in third_party}
        self.attribute_names = attribute_names
        self.written: Set[cst.CSTNode] = set()     # attribute targets of assignments
        self.library_heads: Set[cst.Name] = set()  # heads bound to _VALUE_LIBRARIES or their values
        #: torch names the file assigns (``nn.MaskedLinear = MaskedLinear``): the project's own
        self.assigned_torch_names: Set[str] = set()
        self.receivers: Set[cst.CSTNode] = set()   # expressions whose attribute is read
        self.star = star
        self.stars: List[Tuple[ImportRecord, Mapping[str, str]]] = []  # resolvable star imports seen
        self.module: Optional[cst.Module] = None
        self.module_names: Optional[Set[str]] = None
        self.scopes: List[_Scope] = [_Scope()]
        self.method_names = frozenset(method_names)
        self.depth = 0  # >0 inside a function or class
        self.identifiers = None if identifiers is None else identifiers | self.method_names
        self.statement: Optional[cst.SimpleStatementLine] = None
        if identifiers is not None:
            self.out.hot_statements = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = node

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = None

    def _heat_statement(self) -> None:
        """The statement holds a torch import or use: the rules must see it (an import line
        also for the import stage, which needs its translation)."""
        if self.out.hot_statements is not None and self.statement is not None:
            self.out.hot_statements.add(self.statement)

    def _heat(self, names: Sequence[str]) -> None:
        hot = self.out.hot_statements
        if (hot is not None and self.statement is not None and self.statement not in hot
                and any(n in self.identifiers for n in names)):
            hot.add(self.statement)

    def _tracked(self, qualname: str) -> bool:
        """A torch name, or a third-party name the table has a row for or under
        (``tensorboardX.SummaryWriter``, the module ``tensorboardX``); any other name of a
        third-party package stays that package's."""
        root = qualname.split(".", 1)[0]
        if root in TORCH_ROOTS:
            return True
        if root not in self.roots:
            return False
        return any(a == qualname or a.startswith(qualname + ".") or qualname.startswith(a + ".")
                   for a in self.third_party)

    # -- scopes -------------------------------------------------------------------
    def _lookup(self, name: str) -> Optional[ImportBinding]:
        innermost = True
        for scope in reversed(self.scopes):
            if scope.is_class and not innermost:
                continue
            innermost = False
            if name in scope.names:
                return scope.names[name]
        return self._from_star(name)

    def _from_star(self, name: str) -> Optional[ImportBinding]:
        """A free name a resolved star import (``from torch.nn import *``) provides: bound in
        the module scope as if the star import had named it, and added to that import."""
        if not self.stars or name in self._module_level_names():
            return None  # the file's own module-level name wins, wherever it is defined
        for rec, names in reversed(self.stars):
            origin = names.get(name)
            if origin is None:
                continue
            if origin.startswith("python:"):
                rec.python_names[name] = origin[len("python:"):]
                binding = _LIBRARY if rec.python_names[name].split(".", 1)[0] in _VALUE_LIBRARIES else _FOREIGN
            else:
                binding = ImportBinding(name, origin, origin in TORCH_MODULES, True)
                rec.bindings.append(binding)
            self.scopes[0].names[name] = binding
            return binding
        return None

    def _module_level_names(self) -> Set[str]:
        """Names the module's own top-level statements bind (defs, classes, assignments,
        non-star imports), found once."""
        if self.module_names is None:
            self.module_names = set()
            for stmt in self.module.body if self.module is not None else ():
                if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                    self.module_names.add(stmt.name.value)
                for node in _top_level_targets(stmt):
                    self.module_names.add(node)
        return self.module_names

    def visit_Module(self, node: cst.Module) -> None:
        self.module = node

    def _bind(self, name: str, binding: Optional[ImportBinding]) -> None:
        names = self.scopes[-1].names
        old = names.get(name)
        if self.scopes[-1].in_except and old is not None and is_torch_name(old.qualname) \
                and not (binding is not None and binding.qualname):
            # ``try: import torch / except ImportError: torch = None``: the fallback never runs
            # where the converted code runs, so the name stays the torch module it imported
            return
        names[name] = binding

    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._bind_target(el.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        else:  # attribute/subscript targets read their base
            self._written(target)
            self.visit(target)

    def _bind_params(self, params: cst.Parameters) -> None:
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            self._bind(p.name.value, None)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._bind(star.name.value, None)

    def _visit_param_exprs(self, params: cst.Parameters) -> None:
        for p in (*params.posonly_params, *params.params, *params.kwonly_params,
                  params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                if p.default is not None:
                    self.visit(p.default)
                if p.annotation is not None:
                    self.visit(p.annotation)

    # -- imports ------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        bindings = []
        others = []
        for alias in node.names:
            name = dotted_name_of(alias.name)
            if alias.asname is not None:
                local = alias.asname.name.value
                qual = name
            else:
                local = name.split(".", 1)[0]
                qual = local
            if self._tracked(name):
                b = ImportBinding(local, qual, True, False)
                bindings.append(b)
                self._bind(local, b)
            else:
                self._bind(local, _foreign_binding(name, local, qual, True))
                others.append(name if alias.asname is None else f"{name} as {local}")
        if bindings:
            self.out.imports.append(ImportRecord(node, bindings, top_level=self.depth == 0,
                                                 foreign_aliases=others))
            self._heat_statement()
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or node.module is None:
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    self._bind((alias.asname.name if alias.asname else alias.name).value, _NOT_TENSOR)
            return False
        module = dotted_name_of(node.module)
        if not is_torch_name(module) and (isinstance(node.names, cst.ImportStar) or not self._tracked(module)):
            # a name from the user's own modules may well make tensors or modules
            # (``from model import Net``); one from a known non-tensor library does not
            root = module.split(".", 1)[0]
            binding = (_LIBRARY if root in _VALUE_LIBRARIES else _FOREIGN if root in NON_TENSOR_LIBRARIES
                       else _NOT_TENSOR)
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    local = (alias.asname.name if alias.asname else alias.name).value
                    qual = f"{module}.{dotted_name_of(alias.name)}"
                    self._bind(local, _foreign_binding(module, local, qual, False)
                               if root in TRACKED_LIBRARIES else binding)
            return False
        if isinstance(node.names, cst.ImportStar):
            rec = ImportRecord(node, [], star=True, top_level=self.depth == 0)
            self.out.imports.append(rec)
            if module in self.star:
                self.stars.append((rec, self.star[module]))
            self._heat_statement()
            return False
        bindings = []
        others = []  # a third-party package's names without a row: imported as they are
        for alias in node.names:
            name = dotted_name_of(alias.name)
            local = alias.asname.name.value if alias.asname else name
            qual = f"{module}.{name}"
            if not self._tracked(qual):
                self._bind(local, _NOT_TENSOR)
                others.append(name if local == name else f"{name} as {local}")
                continue
            b = ImportBinding(local, qual, qual in TORCH_MODULES, True)
            bindings.append(b)
            self._bind(local, b)
        if not bindings:
            return False
        self.out.imports.append(ImportRecord(node, bindings, top_level=self.depth == 0, foreign_aliases=others))
        self._heat_statement()
        return False

    # -- references -----------------------------------------------------------------
    def _reference(self, node: cst.BaseExpression) -> bool:
        """Record a dotted chain's torch use; return True when it was a plain chain."""
        parts = dotted(node)
        if parts is None:
            return False
        head = chain_head(node)
        binding = self._lookup(parts[0])
        if isinstance(binding, _Tracked):
            self.out.foreign_heads.add(head)
            self.out.library_uses[node] = ".".join([binding.qualname, *parts[1:]])
            self._heat_statement()
        elif any(binding is b for b in _FOREIGN_LIKE):  # by identity: bindings compare by value
            self.out.foreign_heads.add(head)
            if binding is not _FOREIGN:
                self.library_heads.add(head)
        elif binding is _NOT_TENSOR:
            self.out.not_tensor_names.add(head)
        elif binding is not None and not self._tracked(".".join([binding.qualname, *parts[1:]])):
            self.out.foreign_heads.add(head)  # ``tensorboardX.GlobalSummaryWriter``: no row, stays
        elif binding is not None:
            self.out.heads[head] = binding
            self.out.uses[node] = ".".join([binding.qualname, *parts[1:]])
            self._heat_statement()
        self._heat(parts)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        plain = self._reference(node)
        if node.attr.value in self.attribute_names and node not in self.out.uses:
            self._attribute_read(node)
        if plain:
            return False
        self._heat((node.attr.value,))
        self.receivers.add(node.value)
        self.visit(node.value)
        return False

    def _attribute_read(self, node: cst.Attribute) -> None:
        """``x.grad_fn``, ``x.data``: a read of a tensor data attribute the Var lacks or defines
        differently, on a receiver that may be a tensor.  Not a callee, not written
        (``x.data = v``, ``x.data[i] = v``: those write through to ``x``), not the receiver of
        a further attribute (``x.data.copy_(...)``: the ``.data`` rule's)."""
        if node in self.out.call_funcs or node in self.written or node in self.receivers:
            return
        if self.out.is_tensor_receiver(node.value):
            self.out.method_uses[node] = f"torch.Tensor.{node.attr.value}"
            self._heat_statement()

    def _written(self, target: cst.BaseExpression) -> None:
        """Record the attribute a target writes into or through (``x.data``, ``x.data[0]``)."""
        while isinstance(target, cst.Subscript):
            target = target.value
        if isinstance(target, cst.Attribute):
            self.written.add(target)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if "torch" not in node.value:  # the cheap test first: most strings name nothing
            return
        value = node.evaluated_value
        if isinstance(value, str) and _DOTTED_TORCH.fullmatch(value):
            self.out.name_strings[node] = value
            self._heat_statement()

    def visit_Name(self, node: cst.Name) -> bool:
        self._reference(node)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.out.call_funcs.add(node.func)
        if self._builtin_call(node):
            self.out.not_tensor_calls.add(node)

    def _builtin_call(self, node: cst.Call) -> bool:
        """``list(...)``, ``sorted(...)``: a builtin (not rebound here) whose result is no tensor."""
        f = node.func
        return (isinstance(f, cst.Name) and f.value in _NON_TENSOR_CALLS and self._lookup(f.value) is None
                and f.value not in self._bound_names())

    def leave_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value in self.method_names
                and func not in self.out.uses and self.out.is_tensor_receiver(func.value)):
            self.out.method_uses[func] = f"torch.Tensor.{func.attr.value}"

    def visit_Arg(self, node: cst.Arg) -> bool:
        self.visit(node.value)
        return False

    # -- bindings -------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> bool:
        self.visit(node.value)
        for t in node.targets:
            self._bind_target(t.target)
            # ``nn.MaskedLinear = MaskedLinear``: a name of the file's own, attached under its name
            parts = dotted(t.target) if isinstance(t.target, cst.Attribute) else None
            binding = self._lookup(parts[0]) if parts else None
            if isinstance(binding, ImportBinding) and binding.is_module and isinstance(node.value, cst.Name) \
                    and node.value.value == parts[-1] and not isinstance(self._lookup(parts[-1]), ImportBinding):
                self.assigned_torch_names.add(".".join([binding.qualname, *parts[1:]]))
            if isinstance(t.target, cst.Name) and _root_of(node.value) in self.library_heads:
                # ``img = PIL.Image.open(p)``, then ``img = img.crop(...)``: still PIL's
                self._bind(t.target.value, _LIBRARY_VALUE)
            elif isinstance(t.target, cst.Name) and self._not_a_tensor(node.value):
                self._bind(t.target.value, _NOT_TENSOR)
            elif (isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name)
                  and t.target.value.value == "self" and self._makes_module(node.value)):
                self.out.module_attrs.add(t.target.attr.value)
        return False

    def _not_a_tensor(self, value: cst.BaseExpression) -> bool:
        """A value that is surely no tensor: a literal, a builtin's result, or anything computed
        from a non-torch library (``np.zeros(3)``, ``pd.read_csv(f).values``)."""
        if isinstance(value, (*_LITERALS, cst.Tuple)):
            return True
        root = _root_of(value)
        if not isinstance(root, cst.Name):
            return False
        if root in self.out.foreign_heads:
            return True
        return isinstance(value, cst.Call) and value in self.out.not_tensor_calls

    def _bound_names(self) -> Set[str]:
        return {n for scope in self.scopes for n in scope.names}

    def _makes_module(self, value: cst.BaseExpression) -> bool:
        """``nn.ReLU()``, ``nn.Sequential(...)``, ``MyBlock(...)``: a module or layer object."""
        if not isinstance(value, cst.Call):
            return False
        qual = self.out.qualname(value.func) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith("torch.nn.") and last[:1].isupper():
            return last not in _TENSOR_CLASSES  # nn.Parameter(...) is a tensor, not a layer
        parts = dotted(value.func)
        return parts is not None and parts[-1][:1].isupper() and not qual

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        self._bind_target(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self.visit(node.value)
        self._written(node.target)
        self.visit(node.target)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self.visit(node.value)
        self._bind_target(node.target)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self.visit(node.iter)
        self._bind_target(node.target)
        self.visit(node.body)
        if node.orelse is not None:
            self.visit(node.orelse)
        return False

    def visit_WithItem(self, node: cst.WithItem) -> bool:
        self.visit(node.item)
        if node.asname is not None:
            self._bind_target(node.asname.name)
        return False

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> bool:
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self._bind_target(node.name.name)
        self.scopes[-1].in_except += 1
        self.visit(node.body)
        self.scopes[-1].in_except -= 1
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        for d in node.decorators:
            self.visit(d)
        self._visit_param_exprs(node.params)
        if node.returns is not None:
            self.visit(node.returns)
        self._bind(node.name.value, None)
        self.scopes.append(_Scope())
        self.depth += 1
        self._bind_params(node.params)
        self.visit(node.body)
        self.depth -= 1
        self.scopes.pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._visit_param_exprs(node.params)
        self.scopes.append(_Scope())
        self._bind_params(node.params)
        self.visit(node.body)
        self.scopes.pop()
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for d in node.decorators:
            self.visit(d)
        for a in (*node.bases, *node.keywords):
            self.visit(a.value)
        self._bind(node.name.value, None)
        self.scopes.append(_Scope(is_class=True))
        self.depth += 1
        self.visit(node.body)
        self.depth -= 1
        self.scopes.pop()
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False


def resolve(module: cst.Module, method_names: Sequence[str] = (),
            identifiers: Optional[FrozenSet[str]] = frozenset(),
            star: Mapping[str, Mapping[str, str]] = {},
            attribute_names: FrozenSet[str] = frozenset(), third_party: FrozenSet[str] = frozenset()) -> TorchNames:
    """Resolve torch names in ``module``.

    ``method_names`` are the tensor methods the mapping table has rows for; calls of those
    methods on receivers that may be tensors are recorded in ``method_uses``.
    ``identifiers`` are names (attributes or plain names) that make a simple statement worth
    visiting for the rules (``hot_statements``); None means every statement is.
    ``star`` gives, per torch module, what its star import binds (``MappingTable.star``): a
    free name such an import provides resolves as if the import had named it.
    ``attribute_names`` are tensor data attributes whose reads on receivers that may be
    tensors are recorded in ``method_uses`` too (``x.grad_fn``, ``x.data``).
    ``third_party`` are the table's rows of other packages (``MappingTable.third_party``):
    imports of those names are tracked like torch's, the rest of their packages is not.
    """
    r = _Resolver(method_names, identifiers, star, attribute_names, third_party)
    r.visit(module)
    if r.assigned_torch_names:  # the project's own names on a torch module are not torch's
        own = tuple(r.assigned_torch_names)
        r.out.uses = {n: q for n, q in r.out.uses.items()
                      if not any(q == a or q.startswith(a + ".") for a in own)}
    return r.out
