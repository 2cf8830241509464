"""How a converted distributed program is launched: what the report's "to run" line says.

torch programs start their processes themselves (``mp.spawn(fn, nprocs=2)``) or are started by
``torchrun``/``torch.distributed.launch``; a converted one is started by ``mpirun -np N``
(``shims.distributed``).  This rule changes no code; it reads what the file says about its launch:

* ``torch.multiprocessing.spawn`` with a literal ``nprocs`` (torch's default, 1, when omitted):
  the file's launch note names that count (``mpirun -np 2 ...``) instead of ``-np N``, when
  every spawn call of the file agrees;
* reads of torchrun's variables (``os.environ["LOCAL_RANK"]``, ``os.getenv("RANK")``): a run
  note that ``import shims`` sets them from OpenMPI's under ``mpirun``;
* ``parser.add_argument("--local_rank", ...)``: ``torch.distributed.launch`` passed it,
  ``mpirun`` does not, so the argument keeps its default (a JT104 marker saying what to read).
"""
from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from .base import Rule
from .common import method_name, positional

CODE = "JT104"
_SPAWN = "torch.multiprocessing.spawn"
_SPAWN_NPROCS = 2  # spawn(fn, args=(), nprocs=1, ...): nprocs's position
_TORCHRUN_VARS = frozenset({"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                            "MASTER_PORT"})
_LOCAL_RANK_FLAGS = ("--local_rank", "--local-rank")
ENV_NOTE = ("torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, ...) is read: under mpirun, "
            "`import shims` sets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and "
            "MASTER_PORT from OpenMPI's variables")
LOCAL_RANK_MESSAGE = ("mpirun passes no {flag} (torch.distributed.launch did): it keeps its "
                      "default; read int(os.environ['LOCAL_RANK']) (set under mpirun by import shims) "
                      "or shims.distributed.get_local_rank()")
_GENERIC_COUNT = "mpirun -np N "


def _string(node: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _is_environ(node: cst.BaseExpression) -> bool:
    """``os.environ`` or a bare ``environ`` (``from os import environ``)."""
    return (isinstance(node, cst.Attribute) and node.attr.value == "environ") or \
        (isinstance(node, cst.Name) and node.value == "environ")


def _spawn_nprocs(call: cst.Call) -> Optional[int]:
    """The literal process count of a ``spawn`` call (1 when omitted), or None when unknown."""
    if any(a.star for a in call.args):
        return None
    value = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "nprocs"), None)
    if value is None:
        pos = positional(call)
        if len(pos) <= _SPAWN_NPROCS:
            return 1
        value = pos[_SPAWN_NPROCS].value
    if isinstance(value, cst.Integer):
        return int(value.evaluated_value)
    return None


class LaunchRule(Rule):
    """Record how the converted program must be launched (no code change)."""

    name = "launch"
    identifiers = frozenset({"environ", "getenv", "add_argument"})

    def __init__(self, ctx):
        super().__init__(ctx)
        self.nprocs: Set[Optional[int]] = set()
        self.written: Set[cst.CSTNode] = set()  # os.environ[...] assignment targets

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.written.add(node.target)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node in self.written or not _is_environ(node.value) or len(node.slice) != 1:
            return
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and _string(index.value) in _TORCHRUN_VARS:
            self.ctx.run_note(ENV_NOTE)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) == _SPAWN:
            self.nprocs.add(_spawn_nprocs(node))
            return
        name = method_name(node)
        first = positional(node)[0].value if positional(node) else None
        if name == "getenv" or (name == "get" and _is_environ(node.func.value)):
            if _string(first) in _TORCHRUN_VARS:
                self.ctx.run_note(ENV_NOTE)
        elif name == "add_argument":
            flag = next((f for f in map(_string, (a.value for a in positional(node)))
                         if f in _LOCAL_RANK_FLAGS), None)
            if flag is not None:
                self.ctx.warn(node, CODE, LOCAL_RANK_MESSAGE.format(flag=flag), api=flag)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if len(self.nprocs) == 1 and None not in self.nprocs:
            count = f"mpirun -np {next(iter(self.nprocs))} "
            self.ctx.run_notes[:] = [n.replace(_GENERIC_COUNT, count) for n in self.ctx.run_notes]
        return updated
