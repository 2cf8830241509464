"""Devices and parallelism -> Jittor's model: one global ``jt.flags.use_cuda``, no placement.

* ``x.cuda()``, ``x.cpu()``, ``x.to(device)``, ``x.to(device, non_blocking=True)``,
  ``x.to(memory_format=...)`` -> ``x``;
  ``x.to(dtype)``/``x.to(device, dtype)`` keep the cast (``x.to(dtype)``); a ``.to(arg)`` whose
  argument is neither clearly a device nor a dtype becomes ``shims.tensor_to(x, arg)`` (decided
  when it runs).  (Jittor's ``Var.to("cuda")``
  would flip the global flag, so placement calls must go.)
* ``device=``/``non_blocking=`` keywords of torch calls are dropped (torch factory functions).
* ``torch.device(spec, ...)`` -> ``shims.runtime.Device(spec, ...)`` (torch's ``type``/``index``,
  equal to its string; code reads ``device.type``);
  ``torch.cuda.is_available()`` -> ``jt.has_cuda``; ``torch.cuda.device_count()`` ->
  ``(1 if jt.has_cuda else 0)`` (Jittor drives one device per process);
  ``torch.cuda.synchronize()`` -> ``jt.sync_all(True)``;
  ``torch.cuda.empty_cache()`` -> ``jt.gc()``.
* statements that only place things (``model.cuda()``, ``model = model.to(device)``,
  ``torch.backends.cudnn.benchmark = True``, ``torch.cuda.set_device(i)``,
  ``torch.set_default_device(d)``, and ``torch.set_default_tensor_type`` of a float32 type:
  ``'torch.cuda.FloatTensor'``, ``torch.FloatTensor``, which only places new tensors, Jittor's
  default float being float32 already) are removed; another tensor type stays unsupported.
* ``DataParallel``/``DistributedDataParallel`` and ``torch.distributed`` are table rows
  (``shims.distributed``: torch's calls over the processes ``mpirun`` started).
* a file with an ``if __name__ == "__main__":`` entry point that used devices gets
  ``jt.flags.use_cuda = jt.has_cuda`` as the entry point's first statement.
"""
from __future__ import annotations

import re

import libcst as cst

from ..names import dotted
from .base import Rule
from .common import BlockRule, code_of, method_name, receiver

CODE = "JT104"
_DTYPES = {"float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "long",
           "short", "int8", "int16", "int32", "int64", "uint8", "bool"}
_DEVICE_HINTS = ("device", "dev", "gpu", "cuda", "cpu", "rank")
_DEVICE_STRING = re.compile(r"^(cuda|cpu|mps|xla|meta|xpu|hip|npu|ipu|hpu|privateuseone)(:\d+)?$")
_CALLS = {
    "torch.cuda.is_available": "jittor.has_cuda",
}
_REPLACED_CALLS = {"torch.cuda.synchronize": ("jittor.sync_all", "True"),
                   "torch.cuda.empty_cache": ("jittor.gc", "")}
_REMOVED_CALLS = ("torch.cuda.set_device", "torch.set_default_device")
#: ``torch.set_default_tensor_type`` arguments that only place tensors (the default float stays float32)
_FLOAT32_TYPES = ("torch.FloatTensor", "torch.cuda.FloatTensor")
_MAIN_FLAG = "jt.flags.use_cuda = jt.has_cuda"


def _is_main_guard(node: cst.If) -> bool:
    t = node.test
    return (isinstance(t, cst.Comparison) and isinstance(t.left, cst.Name) and t.left.value == "__name__"
            and len(t.comparisons) == 1 and isinstance(t.comparisons[0].comparator, cst.SimpleString)
            and t.comparisons[0].comparator.evaluated_value == "__main__")


class DeviceRule(BlockRule, Rule):
    """Remove tensor placement and map device queries."""

    name = "device"
    identifiers = frozenset({"cuda", "cpu", "to"})

    def __init__(self, ctx):
        super().__init__(ctx)
        self.used = False                 # the file placed something / asked about CUDA

    # -- calls -----------------------------------------------------------------------------
    def _kind_of_to_arg(self, arg: cst.Arg) -> str:
        """'device', 'dtype' or '?' for one argument of ``.to(...)``."""
        if arg.keyword is not None:
            k = arg.keyword.value
            # memory_format is a layout hint: Jittor has one layout, so it goes with the device
            return {"device": "device", "non_blocking": "device", "copy": "device",
                    "memory_format": "device", "dtype": "dtype"}.get(k, "?")
        v = arg.value
        q = self.ctx.qualname(v) or ""
        if q.startswith("torch.") and q[6:] in _DTYPES:
            return "dtype"
        if isinstance(v, cst.SimpleString):
            # "cuda", "cpu", "cuda:1": a device; any other string is no device (``meter.to("s")``)
            text = v.evaluated_value
            return "device" if isinstance(text, str) and _DEVICE_STRING.match(text) else "?"
        if isinstance(v, cst.FormattedString):
            return "device"
        if isinstance(v, cst.Call) and self.ctx.qualname(v.func) == "torch.device":
            return "device"
        parts = dotted(v)
        if parts is not None:
            last = parts[-1].lower()
            if last == "dtype" or (len(parts) > 1 and last in _DTYPES):  # x.dtype, jt.float32
                return "dtype"
            if any(h in last for h in _DEVICE_HINTS):
                return "device"
        return "?"

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        q = self.ctx.qualname(original.func)
        if q is not None:
            return self._torch_call(original, updated, q)
        name = method_name(original)
        recv = receiver(original)
        if name not in ("cuda", "cpu", "to") or recv is None or not self.ctx.is_tensor_receiver(recv):
            return updated
        if name == "to":
            kinds = [self._kind_of_to_arg(a) for a in original.args]
            if "?" in kinds or not kinds:
                # decided when it runs: devices change nothing, dtypes cast (shims.tensor_to)
                self.used = True
                self.ctx.handled(original.func)
                self.ctx.note("x.to(arg) with an argument of unknown kind -> shims.tensor_to (a device "
                              "changes nothing, a dtype casts)")
                comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                recv_arg = cst.Arg(updated.func.value, comma=comma if updated.args else cst.MaybeSentinel.DEFAULT)  # type: ignore[union-attr]
                return cst.Call(func=self.ctx.spell("shims.tensor_to"), args=[recv_arg, *updated.args],
                                lpar=updated.lpar, rpar=updated.rpar)
            dtypes = [u for u, k in zip(updated.args, kinds) if k == "dtype"]
            if dtypes:
                self.used = True
                self.ctx.handled(original.func)
                last = dtypes[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return updated.with_changes(args=[*dtypes[:-1], last])
        self.used = True
        self.ctx.handled(original.func)
        self.ctx.note("device placement calls (.cuda()/.cpu()/.to(device)) removed: Jittor places "
                      "every Var by the global jt.flags.use_cuda")
        return updated.func.value  # type: ignore[union-attr]

    def _torch_call(self, original: cst.Call, updated: cst.Call, q: str) -> cst.BaseExpression:
        if q in _CALLS:
            self.used = self.used or q.startswith("torch.cuda")
            self.ctx.handled(original)
            return self.ctx.spell(_CALLS[q])
        if q in _REPLACED_CALLS:
            target, args = _REPLACED_CALLS[q]
            self.ctx.handled(original)
            return cst.parse_expression(f"F({args})").with_changes(func=self.ctx.spell(target))
        if q == "torch.cuda.device_count":
            self.used = True
            self.ctx.handled(original)
            flag = cst.Module([]).code_for_node(self.ctx.spell("jittor.has_cuda"))
            return cst.parse_expression(f"(1 if {flag} else 0)")
        if q == "torch.device":
            self.used = True
            self.ctx.handled(original)
            return updated.with_changes(func=self.ctx.spell("shims.runtime.Device"))
        drop = [a for a in updated.args if a.keyword is not None and a.keyword.value in ("device", "non_blocking")]
        if drop:
            self.used = True
            self.ctx.note(f"{q}: dropped device=/non_blocking= (Jittor places every Var globally)")
            kept = [a for a in updated.args if a not in drop]
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(args=kept)
        return updated

    # -- statements ------------------------------------------------------------------------
    def plan(self, body) -> None:
        for stmt in body:
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                continue
            small = stmt.body[0]
            if isinstance(small, (cst.Expr, cst.Assign)) and isinstance(small.value, cst.Call):
                # a placement-only line (``model.cuda()``, ``x = x.to(device)``) goes once converted
                self.edit(stmt, lambda new, stmt=stmt: [] if _only_names(stmt, new) else [new])
            if isinstance(small, cst.Assign):
                q = self.ctx.qualname(small.targets[0].target) or ""
                if q.startswith("torch.backends."):
                    self.remove(stmt)
                    self.ctx.handled(stmt)
                    self.ctx.note(f"{q} = ... removed: no Jittor equivalent needed")
            elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                q = self.ctx.qualname(small.value.func)
                if q in _REMOVED_CALLS or (q == "torch.set_default_tensor_type" and self._float32_type(small.value)):
                    self.used = True
                    self.remove(stmt)
                    self.ctx.handled(stmt)
                    self.ctx.note(f"{q}(...) removed: Jittor selects the GPU with jt.flags.use_cuda"
                                  + (" and its default float is float32" if q.endswith("tensor_type") else ""))

    def _float32_type(self, call: cst.Call) -> bool:
        """Whether ``torch.set_default_tensor_type(...)`` names a float32 type (a string or a
        name: ``'torch.cuda.FloatTensor'``, ``torch.FloatTensor``)."""
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return False
        v = call.args[0].value
        name = v.evaluated_value if isinstance(v, cst.SimpleString) else self.ctx.qualname(v)
        return name in _FLOAT32_TYPES

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if not self.used or not _is_main_guard(original) or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        if any(code_of(s).strip() == _MAIN_FLAG for s in updated.body.body):
            return updated
        self.ctx.spell("jittor.flags")
        line = cst.parse_statement(_MAIN_FLAG)
        return updated.with_changes(body=updated.body.with_changes(body=[line, *updated.body.body]))


def _only_names(orig: cst.CSTNode, stmt: cst.CSTNode) -> bool:
    """A statement whose device call was removed and that now does nothing:
    ``model.cuda()`` -> ``model``; ``x = x.to(device)`` -> ``x = x``."""
    if not (isinstance(orig, cst.SimpleStatementLine) and isinstance(stmt, cst.SimpleStatementLine)
            and len(stmt.body) == 1):
        return False
    o, s = orig.body[0], stmt.body[0]
    if isinstance(o, cst.Expr) and isinstance(o.value, cst.Call) and isinstance(s, cst.Expr):
        return dotted(s.value) is not None
    if isinstance(o, cst.Assign) and isinstance(o.value, cst.Call) and isinstance(s, cst.Assign) \
            and len(s.targets) == 1:
        return dotted(s.value) is not None and code_of(s.targets[0].target) == code_of(s.value)
    return False
