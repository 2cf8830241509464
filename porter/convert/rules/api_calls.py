"""The table-driven rule: every torch API reference and tensor-method call with a table row.

For a reference (``torch.cat``, ``nn.Conv2d``, ``F.relu``, ``torch.float32``) it writes the
row's target; for a call it also applies the row's argument policy (renames, harmless drops,
rejected arguments); for a tensor-method row it renames the method or turns it into a function
call with the receiver first (``x.var(1)`` -> ``shims.var(x, 1)``).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ...mapping import SPREAD, ApiEntry
from ..names import NATURAL_MODULES, TORCH_MODULES, dotted, dotted_name_of, is_torch_name
from .base import Rule

_EMPTY = cst.Module([])


def code_of(node: cst.CSTNode) -> str:
    """The source text of a node."""
    return _EMPTY.code_for_node(node)


def _keyword(arg: cst.Arg, name: str) -> cst.Arg:
    return arg.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                              whitespace_after=cst.SimpleWhitespace("")))


# complexity: one linear pass over torch's argument forms; splitting it scatters the table's rules
def transform_args(entry: ApiEntry, args: List[cst.Arg], then: Optional[list] = None  # noqa: C901
                   ) -> Tuple[List[cst.Arg], List[str], Optional[str]]:
    """Apply a row's argument policy to a call's arguments.

    Returns (new arguments, notes about dropped arguments, problem).  ``problem`` is set when
    an argument is rejected: the call then must stay as it is and be reported.  ``then``
    (a list) receives ``(method, value)`` for each ``then`` argument taken out of the call.
    """
    if not (entry.rename or entry.drop or entry.reject or entry.then or entry.accepts is not None):
        return list(args), [], None
    out: List[cst.Arg] = []
    notes: List[str] = []
    shifted = False
    position = 0
    for arg in args:
        if arg.star:  # *args / **kwargs: names unknown statically
            if entry.reject or entry.drop:
                return list(args), [], (f"`{arg.star}{code_of(arg.value)}` hides which arguments reach "
                                        f"{entry.api}; its argument policy cannot be checked")
            out.append(arg)
            continue
        if arg.keyword is None:
            name = entry.params[position] if position < len(entry.params) else None
            position += 1
        else:
            name = arg.keyword.value
        if name is not None and name in entry.reject:
            rej = entry.reject[name]
            value = code_of(arg.value)
            if value not in rej.allow:
                return list(args), [], f"argument {name}={value}: {rej.reason}"
            notes.append(f"{entry.api}: dropped {name}={value} (the Jittor default)")
            shifted = shifted or arg.keyword is None
            continue
        if name is not None and name in entry.then:
            if code_of(arg.value) != "False" and then is not None:
                then.append((entry.then[name][1:], arg.value))
            elif code_of(arg.value) != "False":
                return list(args), [], f"argument {name}= needs a rewrite of the call's result"
            shifted = shifted or arg.keyword is None
            continue
        if name is not None and name in entry.drop:
            notes.append(f"{entry.api}: dropped {name}= ({entry.drop[name]})")
            shifted = shifted or arg.keyword is None
            continue
        new_name = entry.rename.get(name, name) if name is not None else None
        if new_name == SPREAD and arg.keyword is not None:  # torch.zeros(size=s) -> jt.zeros(*s)
            out.insert(0, arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, star="*"))
            continue
        if entry.accepts is not None and new_name is not None and new_name not in entry.accepts \
                and (arg.keyword is not None or shifted):
            return list(args), [], (f"argument {name}=: {entry.target} takes no such argument (it takes "
                                    f"{', '.join(sorted(entry.accepts)) or 'none'})")
        if arg.keyword is None and not shifted:
            out.append(arg)
        elif new_name is not None and (arg.keyword is None or new_name != arg.keyword.value):
            out.append(_keyword(arg, new_name))
        else:
            out.append(arg)
    if out:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        out = [a if a.comma is not cst.MaybeSentinel.DEFAULT else a.with_changes(comma=comma) for a in out[:-1]] \
            + [out[-1].with_changes(comma=args[-1].comma)]
    return out, notes, None


def name_factory_args(entry: ApiEntry, args: List[cst.Arg]) -> Tuple[List[cst.Arg], List[str]]:
    """Torch's trailing factory arguments passed by position (``nn.Linear(3, 2, True, "cpu",
    torch.float64)``, ``super().__init__(i, o, bias, device, dtype)``) as the keyword forms the
    rules handle: ``device`` is dropped (Jittor places every Var globally), ``dtype`` becomes
    ``dtype=``.  Positions come from the row's ``params`` (torch's signature)."""
    if "device" not in entry.params and "dtype" not in entry.params:
        return list(args), []
    out: List[cst.Arg] = []
    notes: List[str] = []
    named = False  # past a device/dtype position, positional arguments go by name (nothing shifts)
    for i, arg in enumerate(args):
        if arg.star or arg.keyword is not None or i >= len(entry.params) or any(a.star for a in args[:i]):
            out.append(arg)
        elif entry.params[i] == "device":
            named = True
            notes.append(f"{entry.api}: dropped device (Jittor places every Var globally)")
        elif entry.params[i] == "dtype" or named:
            named = True
            out.append(_keyword(arg, entry.params[i]))
        else:
            out.append(arg)
    if out and len(out) < len(args):
        out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return out, notes


def split_factory_dtype(entry: ApiEntry, args: List[cst.Arg]) -> Tuple[List[cst.Arg], Optional[cst.Arg]]:
    """A torch layer's ``dtype=`` factory argument that the row's target lacks, taken out of
    ``args`` (it becomes a cast of the layer's parameters: ``shims.nn.with_dtype``)."""
    if not (entry.kind == "class" and entry.api.startswith("torch.nn.") and entry.accepts is not None
            and "dtype" not in entry.accepts):
        return args, None
    dtype = next((a for a in args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None:
        return args, None
    rest = [a for a in args if a is not dtype]
    if rest:
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return rest, dtype


def _split_out(call: cst.Call, position: Optional[int] = None) -> Tuple[cst.Call, Optional[cst.Arg]]:
    """``f(a, b, out=c)`` -> (``f(a, b)``, the ``out=c`` argument); (call, None) without one.
    ``position``: where torch takes ``out`` positionally (``torch.norm(x, 2, 1, False, o)``)."""
    out = next((a for a in call.args if a.keyword is not None and a.keyword.value == "out"), None)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if out is None and position is not None and len(positional) > position \
            and len(positional) == sum(1 for a in call.args if a.keyword is None):
        out = positional[position]
    if out is None:
        return call, None
    args = [a for a in call.args if a is not out]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args, lpar=[], rpar=[]), out


# torch reductions whose call with no dim (``x.sum()``, ``torch.sum(x)``) is a 0-d tensor
_FULL_REDUCTIONS = frozenset({"sum", "mean", "prod", "amax", "amin", "max", "min", "std", "var", "norm", "all",
                              "any"})


_LOSSES = frozenset({"binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss",
                     "kl_div", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
                     "multilabel_soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss",
                     "margin_ranking_loss", "cosine_embedding_loss", "multi_margin_loss", "triplet_margin_loss",
                     "multilabel_margin_loss", "ctc_loss"})


def _is_reduced_loss(func: Optional[str], call: cst.Call) -> bool:
    """``F.binary_cross_entropy_with_logits(a, b)``: a torch loss function whose reduction is
    not ``'none'`` (nor hidden in ``**kwargs``): a 0-d tensor in torch."""
    if func is None or not func.startswith("torch.nn.functional.") or func.rsplit(".", 1)[-1] not in _LOSSES:
        return False
    for a in call.args:
        if a.star == "**" or (a.keyword is not None and a.keyword.value == "reduction"
                              and not (isinstance(a.value, cst.SimpleString)
                                       and a.value.evaluated_value in ("mean", "sum"))):
            return False
    return True


def _stack_of_scalars(names, call: cst.Call) -> bool:
    """``torch.stack([x.sum(), torch.mean(y), F.mse_loss(a, b)])`` (dim 0 or -1): a literal list
    or tuple of full reductions and reduced losses, 0-d tensors in torch.  Jittor has no 0-d Vars
    (each is shape (1,)), so ``jittor.stack`` would give (N, 1) where torch gives (N,);
    ``jittor.concat`` gives (N,)."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star \
            or not isinstance(call.args[0].value, (cst.List, cst.Tuple)):
        return False
    for arg in call.args[1:]:
        if arg.star or (arg.keyword is not None and arg.keyword.value != "dim") \
                or code_of(arg.value).replace(" ", "") not in ("0", "-1"):
            return False
    elements = call.args[0].value.elements
    if not elements:
        return False
    for el in elements:
        v = el.value
        if isinstance(el, cst.StarredElement) or not isinstance(v, cst.Call):
            return False
        func = names.uses.get(v.func)
        if _is_reduced_loss(func, v):
            continue
        if any(a.keyword for a in v.args):
            return False
        method = names.method_uses.get(v.func)
        if method is not None and method.rsplit(".", 1)[-1] in _FULL_REDUCTIONS and not v.args:
            continue
        if func is not None and func.startswith("torch.") and func.rsplit(".", 1)[-1] in _FULL_REDUCTIONS \
                and len(v.args) == 1 and not v.args[0].star:
            continue
        return False
    return True


def _maybe_none_dtype(arg: cst.Arg) -> bool:
    """``dtype=dtype``: a variable that may hold None (torch: the default dtype; Jittor's
    factories reject None), unlike a spelled dtype (``dtype=torch.float16``)."""
    return arg.keyword is not None and arg.keyword.value == "dtype" \
        and isinstance(arg.value, (cst.Name, cst.Subscript, cst.IfExp)) \
        and not (isinstance(arg.value, cst.Name) and arg.value.value in ("float", "int", "bool"))


class ApiCallRule(Rule):
    """Apply the mapping table to torch references, calls and tensor-method calls."""

    name = "api_calls"
    # torch uses and tensor-method calls are found by name resolution; these name imports of
    # torch at run time
    identifiers = frozenset({"import_module", "__import__"})

    def __init__(self, ctx):
        super().__init__(ctx)
        #: type arguments of isinstance/issubclass: a torch class there keeps its plain target
        #: (an instance made through the torch-signature value is an instance of it too)
        self._type_tests: set = set()
        self._annotations = 0  # inside a type annotation: a class there is a type, never called

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self._annotations += 1

    def leave_Annotation(self, original: cst.Annotation, updated: cst.Annotation) -> cst.Annotation:
        self._annotations -= 1
        return updated

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "issubclass") \
                and len(node.args) == 2:
            kind = node.args[1].value
            self._type_tests.update(e.value for e in kind.elements) if isinstance(kind, (cst.Tuple, cst.List)) \
                else self._type_tests.add(kind)

    # -- references -------------------------------------------------------------------
    def _runtime_value(self, entry: ApiEntry) -> cst.BaseExpression:
        """``shims.namespace("torch.nn").ReLU``: the row's target with its argument policy applied
        at run time to whatever arguments reach it (``act_layer=nn.ReLU`` ... ``act_layer(inplace=True)``,
        ``class Linear(nn.Linear)``, ``torch.empty(1, dim, **dd)``)."""
        module, _, name = entry.api.rpartition(".")
        self.ctx.note(f"{entry.api} used as a value or with hidden arguments: its argument policy is applied "
                      "at run time (shims.namespace)")
        call = cst.Call(func=self.ctx.spell("shims.namespace"), args=[cst.Arg(cst.SimpleString(f'"{module}"'))])
        return cst.Attribute(value=call, attr=cst.Name(name))

    def _lookup(self, qual: str) -> Tuple[Optional[ApiEntry], str]:
        """The row for ``qual`` or for its longest prefix that is a class/module/attribute row,
        plus the attribute path left over (``torch.nn.Module.__init__`` -> Module row,
        ``.__init__``; ``torch.__version__.startswith`` -> ``__version__`` row, ``.startswith``)."""
        table = self.ctx.table
        entry = table.get(qual)
        if entry is not None:
            return entry, ""
        parts = qual.split(".")
        for i in range(len(parts) - 1, 1, -1):
            e = table.get(".".join(parts[:i]))
            if e is not None and e.kind in ("class", "module", "attribute"):
                return e, "." + ".".join(parts[i:])
        return None, ""

    def _natural(self, node: cst.BaseExpression, target: str) -> bool:
        """True when ``node`` already spells ``target`` once its import is converted."""
        binding = self.ctx.names.binding_of(node)
        if binding is None:
            return False
        if binding.from_import and not binding.is_module:
            # the import itself is retargeted; a bare name stays as written
            return isinstance(node, cst.Name)
        natural_root = NATURAL_MODULES.get(binding.qualname)
        if natural_root is None or binding.qualname in ("torch", "torchvision"):
            return False
        parts = dotted(node)
        return parts is not None and ".".join([natural_root, *parts[1:]]) == target

    def _convert_reference(self, original: cst.BaseExpression, updated: cst.BaseExpression,
                           qual: str, value: bool = False) -> Optional[cst.BaseExpression]:
        """The converted expression for a torch reference, or None to leave it.  ``value``: the
        reference is not called here (a default argument, a base class, a dict of layers)."""
        entry, rest = self._lookup(qual)
        if value and entry is not None and not rest and entry.has_policy and original not in self._type_tests \
                and not self._annotations:
            self.ctx.handled(original)
            return self._runtime_value(entry)
        module = qual[:-len(".__dict__")] if qual.endswith(".__dict__") else qual
        binding = self.ctx.names.binding_of(original)
        if entry is None and (module in TORCH_MODULES or binding is not None and binding.is_module
                              and module == binding.qualname):
            # a torch module as a value (getattr(F, name), vars(torch), torch.nn.__dict__[name]):
            # Jittor's namesakes are not torch's, so its attributes resolve through the table at
            # run time (shims.namespace)
            self.ctx.handled(original)
            call = cst.Call(func=self.ctx.spell("shims.namespace"), args=[cst.Arg(cst.SimpleString(f'"{module}"'))])
            return call if module == qual else cst.Attribute(value=call, attr=cst.Name("__dict__"))
        if entry is None:
            natural = NATURAL_MODULES.get(qual)
            if natural is None:
                return None
            target = natural  # a bare module reference (``F`` passed as a value)
        elif entry.status == "unsupported":
            self.ctx.unsupported(original, qual, entry.reason)
            return None
        elif entry.status == "rewritten" or entry.target is None or entry.target.startswith("."):
            return None  # a statement rule should have taken it: reported as a leftover
        else:
            target = entry.target + rest
            if entry.note:
                self.ctx.run_note(entry.note)
        self.ctx.handled(original)
        if self._natural(original, target):
            return updated
        return self.ctx.spell(target)

    def _leave_reference(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        """A torch reference that is not a callee (callees are converted with their call)."""
        if original in self.ctx.names.call_funcs or original in self.ctx.handled_nodes:
            return updated
        qual = self.ctx.names.uses.get(original)
        if qual is None:
            attribute = self.ctx.names.method_uses.get(original)
            if attribute is not None:
                return self._convert_attribute_read(original, updated, attribute)  # type: ignore[arg-type]
            return updated
        return self._convert_reference(original, updated, qual, value=True) or updated

    def _convert_attribute_read(self, original: cst.Attribute, updated: cst.Attribute, qual: str
                                ) -> cst.BaseExpression:
        """``x.data`` -> ``shims.data_of(x)`` (a row with a function target takes the receiver);
        an unsupported row is marked; no row: left for the leftover marker."""
        entry = self.ctx.table.get(qual)
        if entry is None or entry.status == "rewritten" or not (entry.target or entry.status == "unsupported"):
            return updated
        if entry.status == "unsupported":
            self.ctx.unsupported(original, qual, entry.reason)
            return updated
        self.ctx.handled_nodes.add(original)  # this read only: uses in the receiver are their own
        if entry.target.startswith("."):
            return updated.with_changes(attr=cst.Name(entry.target[1:]))
        return cst.Call(func=self.ctx.spell(entry.target), args=[cst.Arg(value=updated.value)],
                        lpar=updated.lpar, rpar=updated.rpar)

    leave_Attribute = _leave_reference
    leave_Name = _leave_reference

    # -- star imports -------------------------------------------------------------------
    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        """A star import of a torch module whose names the table does not list stays, marked
        (the ones it lists are resolved name by name: ``names``, ``imports``)."""
        if isinstance(original.names, cst.ImportStar) and original.module is not None and not original.relative:
            module = dotted_name_of(original.module)
            if is_torch_name(module) and module not in self.ctx.table.star:
                self.ctx.unsupported(original, f"{module}.*", "star import of a torch module jtport has no "
                                     "list of names for: import the names you use explicitly")
        return updated

    # -- calls --------------------------------------------------------------------------
    def _dynamic_torch_import(self, call: cst.Call) -> None:
        """``importlib.import_module("torch")`` / ``__import__("torch.nn")``: marked, never run
        (converted code must not import torch, and the module would be torch's, not ported)."""
        parts = dotted(call.func)
        if parts not in (["importlib", "import_module"], ["import_module"], ["__import__"]) or not call.args:
            return
        first = call.args[0].value
        module = first.evaluated_value if isinstance(first, cst.SimpleString) else None
        if isinstance(module, str) and is_torch_name(module):
            self.ctx.unsupported(call, module, "imports torch at run time, which converted code never does: "
                                 "use the module's Jittor/shims port (shims.namespace(name) looks torch's "
                                 "names up in jtport's table)")

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        names = self.ctx.names
        func = original.func
        if func not in names.uses and func not in names.method_uses:
            self._dynamic_torch_import(original)
        if func in self.ctx.handled_nodes:
            return updated  # an earlier rule converted this call
        qual = names.uses.get(func)
        if qual is not None:
            return self._convert_function_call(original, updated, qual)
        mqual = names.method_uses.get(func)
        if mqual is not None:
            return self._convert_method_call(original, updated, mqual)
        return updated

    def _args_or_report(self, original: cst.Call, updated: cst.Call, entry: ApiEntry,
                        qual: str, then: Optional[list] = None) -> Optional[List[cst.Arg]]:
        args, notes, problem = transform_args(entry, list(updated.args), then)
        if problem is not None:
            self.ctx.unsupported(original, qual, problem, code="JT002")
            return None
        for n in notes:
            self.ctx.note(n)
        return args

    def _convert_function_call(self, original: cst.Call, updated: cst.Call, qual: str) -> cst.BaseExpression:
        entry, rest = self._lookup(qual)
        if entry is None or rest or entry.status != "direct" and entry.status != "shim":
            func = self._convert_reference(original.func, updated.func, qual)
            return updated if func is None else updated.with_changes(func=func)
        if entry.has_policy and any(a.star or _maybe_none_dtype(a) for a in original.args):
            # ``torch.empty(1, dim, **dd)``, ``torch.zeros(*x.size())``: the arguments are known
            # only when the call runs
            self.ctx.handled(original.func)
            return updated.with_changes(func=self._runtime_value(entry))
        call, out = (_split_out(updated, entry.out_position) if entry.kind == "function" and "out" not in entry.params
                     else (updated, None))
        named, notes = name_factory_args(entry, list(call.args))
        for n in notes:
            self.ctx.note(n)
        rest, dtype = split_factory_dtype(entry, named)
        then: list = []
        args = self._args_or_report(original, call.with_changes(args=rest), entry, qual, then)
        if args is None:
            return updated
        func = self._convert_reference(original.func, updated.func, qual)
        if qual == "torch.stack" and out is None and _stack_of_scalars(self.ctx.names, original):
            self.ctx.note("torch.stack of 0-d tensors (full reductions) -> jittor.concat: Jittor's scalars "
                          "are shape (1,), so stacking them would add a dimension torch does not have")
            func = self.ctx.spell("jittor.concat")
        converted = call.with_changes(func=func or updated.func, args=args)
        if dtype is not None:  # nn.Linear(3, 2, dtype=d) -> shims.nn.with_dtype(nn.Linear(3, 2), d)
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            converted = cst.Call(func=self.ctx.spell("shims.nn.with_dtype"),
                                 args=[cst.Arg(converted.with_changes(lpar=[], rpar=[]), comma=comma),
                                       cst.Arg(dtype.value)], lpar=converted.lpar, rpar=converted.rpar)
        for method, value in then:  # torch.zeros(3, requires_grad=True) -> jt.zeros(3).requires_grad_(True)
            converted = cst.Call(func=cst.Attribute(value=converted.with_changes(lpar=[], rpar=[]),
                                                    attr=cst.Name(method)),
                                 args=[cst.Arg(value=value)], lpar=converted.lpar, rpar=converted.rpar)
        if out is None:
            return converted
        # torch's out=: Jittor ops return new Vars, so the result is written into the out tensor
        self.ctx.note(f"{qual}(..., out=...): the result is assigned into the out tensor (shims.out_)")
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return cst.Call(func=self.ctx.spell("shims.out_"),
                        args=[cst.Arg(value=out.value, comma=comma), cst.Arg(value=converted)],
                        lpar=updated.lpar, rpar=updated.rpar)

    def _convert_method_call(self, original: cst.Call, updated: cst.Call, qual: str) -> cst.BaseExpression:
        entry = self.ctx.table.get(qual)
        if entry is None:
            return updated
        if entry.status == "unsupported":
            self.ctx.unsupported(original, qual, entry.reason)
            return updated
        if entry.status == "rewritten" or not entry.target:
            return updated
        args = self._args_or_report(original, updated, entry, qual)
        if args is None:
            return updated
        self.ctx.handled_nodes.add(original.func)
        func = updated.func
        assert isinstance(func, cst.Attribute)
        if entry.target.startswith("."):
            return updated.with_changes(func=func.with_changes(attr=cst.Name(entry.target[1:])), args=args)
        receiver = cst.Arg(value=func.value)
        if args:
            receiver = receiver.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated.with_changes(func=self.ctx.spell(entry.target), args=[receiver, *args])
