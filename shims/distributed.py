"""torch.distributed on Jittor's MPI: process groups, collectives, DistributedDataParallel, spawn.

torch starts N processes itself (``torch.multiprocessing.spawn``, ``torchrun``) and connects
them with ``init_process_group``.  Jittor's processes are started by MPI (``mpirun -np N
python train.py``): each already knows its rank and the world size, and Jittor's ``Var`` has
the collectives (``mpi_all_reduce``, ``mpi_broadcast``).  This module keeps torch's calls:

* ``init_process_group`` checks that what the code asks for matches how MPI started the
  program, and otherwise says which ``mpirun`` command to run (:class:`LaunchError`);
* collectives (``all_reduce``, ``broadcast``, ``all_gather``, ...) work in place on the tensor,
  as torch's do, for every ``ReduceOp`` (MPI in Jittor sums and averages; max/min/product are
  computed from an all-gather);
* :class:`DistributedDataParallel` is the wrapped module (state_dict keys keep torch's
  ``module.`` prefix): parameters and buffers start from rank 0's, buffers are re-broadcast
  before each forward, and the gradient store averages its parameters' gradients over the
  ranks after each backward outside ``no_sync()``, as torch's reducer does;
* :func:`spawn` runs the worker function in the current process with its MPI rank;
* under ``mpirun``, importing it (``import shims`` does) sets the variables ``torchrun`` gives
  its workers (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ...) from OpenMPI's, where unset, so
  ``int(os.environ["LOCAL_RANK"])`` works as under ``torchrun`` (:func:`torchrun_environment`).

Without ``mpirun`` the world is one process; asking for more raises :class:`LaunchError` with
the command to run.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import sys
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import numpy as np

import jittor as jt
from jittor import compile_extern

from . import autograd as _autograd
from .nn.module import Module

__all__ = ["ReduceOp", "LaunchError", "launch_command", "is_available", "is_initialized",
           "is_mpi_available", "is_nccl_available", "is_gloo_available", "is_torchelastic_launched",
           "init_process_group", "destroy_process_group", "get_rank", "get_world_size",
           "get_local_rank", "get_backend", "new_group", "group", "barrier", "all_reduce",
           "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "all_gather_object",
           "broadcast_object_list", "DistributedDataParallel", "DataParallel", "spawn",
           "set_start_method", "average_gradients", "torchrun_environment"]


class ReduceOp:
    """torch's reduction operators for collectives."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


class LaunchError(RuntimeError):
    """The program asks for a process layout that the way it was started does not give."""


class _Group:
    """The one process group Jittor has: every MPI process (``group.WORLD``)."""

    def __repr__(self) -> str:
        return "<shims.distributed group WORLD>"


class group:  # noqa: N801  (torch's spelling: dist.group.WORLD)
    """``torch.distributed.group``: only ``WORLD`` exists under MPI."""

    WORLD = _Group()


_state: Dict[str, Any] = {"initialized": False, "backend": None}


def _in_mpi() -> bool:
    return bool(compile_extern.in_mpi)


def _world() -> int:
    return int(compile_extern.world_size) if _in_mpi() else 1


def _rank() -> int:
    return int(compile_extern.rank) if _in_mpi() else 0


# torchrun's worker variable <- OpenMPI's (mpirun sets these in every process it starts).  Only
# OpenMPI: Jittor 1.3.11 recognises MPI by OMPI_COMM_WORLD_SIZE alone, so under another MPI
# (PMI_RANK, ...) each process is a world of one and torchrun's values would contradict it.
_FROM_OPENMPI = {"RANK": "OMPI_COMM_WORLD_RANK", "WORLD_SIZE": "OMPI_COMM_WORLD_SIZE",
                 "LOCAL_RANK": "OMPI_COMM_WORLD_LOCAL_RANK",
                 "LOCAL_WORLD_SIZE": "OMPI_COMM_WORLD_LOCAL_SIZE"}
# MASTER_ADDR/PORT locate torch's rendezvous; MPI has already connected the processes, so they
# only need to exist (init_process_group ignores init_method): torchrun's single-node defaults.
_RENDEZVOUS = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500"}


def torchrun_environment(environ: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The variables ``torchrun`` would give this process, from OpenMPI's: ``{}`` outside
    ``mpirun``; a variable OpenMPI does not set is left out."""
    environ = os.environ if environ is None else environ
    if "OMPI_COMM_WORLD_SIZE" not in environ:
        return {}
    out = {name: environ[ompi] for name, ompi in _FROM_OPENMPI.items() if ompi in environ}
    return {**out, **_RENDEZVOUS}


for _name, _value in torchrun_environment().items():
    os.environ.setdefault(_name, _value)


def launch_command(nprocs: int, argv: Optional[Sequence[str]] = None) -> str:
    """The ``mpirun`` command that starts this program as ``nprocs`` Jittor processes."""
    argv = list(sys.argv if argv is None else argv)
    root = " --allow-run-as-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""
    return f"mpirun{root} -np {nprocs} {sys.executable} " + " ".join(argv)


def _launch_error(nprocs: int, what: str) -> LaunchError:
    return LaunchError(
        f"{what} asks for {nprocs} processes, but this program runs as "
        f"{_world()} process(es). Jittor starts its processes with MPI, not from Python: run\n"
        f"  {launch_command(nprocs)}\n"
        "(across machines add -H host1:N1,host2:N2; see jtport's docs/distributed.md).")


def _check_group(grp) -> None:
    if grp is not None and grp is not group.WORLD:
        raise NotImplementedError("shims.distributed: only the default group (every process) "
                                  "exists under MPI; sub-groups from new_group(ranks) are not supported")


def _require_init(what: str) -> None:
    if not _state["initialized"]:
        raise RuntimeError(f"{what}: Default process group has not been initialized, please make "
                           "sure to call init_process_group.")


def is_available() -> bool:
    """torch's ``dist.is_available()``: the distributed package is usable (always, under MPI or
    as one process)."""
    return True


def is_initialized() -> bool:
    """True between :func:`init_process_group` and :func:`destroy_process_group`."""
    return bool(_state["initialized"])


def is_mpi_available() -> bool:
    """Jittor found ``mpicc`` and built its MPI ops."""
    return bool(getattr(compile_extern, "has_mpi", False))


def is_nccl_available() -> bool:
    """No NCCL backend here: Jittor's collectives go through MPI."""
    return False


def is_gloo_available() -> bool:
    """No gloo backend here: Jittor's collectives go through MPI."""
    return False


def is_torchelastic_launched() -> bool:
    """Never: Jittor programs are launched by ``mpirun``."""
    return False


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None,
                       timeout=None, world_size: int = -1, rank: int = -1, store=None,
                       group_name: str = "", pg_options=None, device_id=None, _ranks=None,
                       enable_reconfigure: bool = False) -> None:
    """torch's ``init_process_group``: under ``mpirun`` the group already exists, so this checks
    that the ``world_size``/``rank`` the code asks for (arguments, or ``WORLD_SIZE``/``RANK`` from
    the environment) are MPI's; without ``mpirun`` only a world of one process is possible.
    ``backend``, ``init_method`` and ``store`` do not apply (MPI connects the processes)."""
    if world_size == -1 and "WORLD_SIZE" in os.environ:
        world_size = int(os.environ["WORLD_SIZE"])
    if rank == -1 and "RANK" in os.environ:
        rank = int(os.environ["RANK"])
    if world_size not in (-1, _world()):
        raise _launch_error(world_size, f"init_process_group(world_size={world_size})")
    if rank not in (-1, _rank()):
        raise LaunchError(f"init_process_group(rank={rank}) in the process MPI numbered {_rank()}: "
                          "under mpirun each process's rank is MPI's; take it from "
                          "dist.get_rank() instead of passing it")
    _state.update(initialized=True, backend=backend or "mpi")


def destroy_process_group(group=None) -> None:
    """torch's ``destroy_process_group``: the default group is gone until the next init."""
    _check_group(group)
    _state.update(initialized=False, backend=None)


def get_rank(group=None) -> int:
    """This process's rank (MPI's ``jt.rank``)."""
    _check_group(group)
    _require_init("get_rank()")
    return _rank()


def get_world_size(group=None) -> int:
    """The number of processes (MPI's ``jt.world_size``)."""
    _check_group(group)
    _require_init("get_world_size()")
    return _world()


def get_local_rank() -> int:
    """The rank among the processes on this machine (MPI's local rank)."""
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("LOCAL_RANK", 0)))


def get_backend(group=None) -> str:
    """The backend named at init (Jittor always communicates through MPI)."""
    _check_group(group)
    _require_init("get_backend()")
    return _state["backend"]


def new_group(ranks: Optional[Sequence[int]] = None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None, sort_ranks: bool = True):
    """``new_group()`` of every rank is the default group; sub-groups do not exist under MPI."""
    if ranks is None or sorted(ranks) == list(range(_world())):
        return group.WORLD
    raise NotImplementedError(f"new_group(ranks={list(ranks)}): Jittor's MPI collectives always "
                              "span every process; sub-groups are not supported")


class _Done:
    """The work handle of an ``async_op=True`` collective: already complete."""

    def wait(self, timeout=None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True


def _finish(async_op: bool):
    return _Done() if async_op else None


def _gathered(tensor: jt.Var) -> jt.Var:
    """Every rank's ``tensor`` stacked along a new first dimension, in rank order."""
    if not _in_mpi():
        return tensor.unsqueeze(0)
    dtype = tensor.dtype
    x = tensor.int32() if dtype == "bool" else tensor
    buf = jt.zeros((_world(), *x.shape), dtype=x.dtype)
    buf[_rank()] = x
    out = _eager(buf.mpi_all_reduce("add"))  # zeros elsewhere: the sum is an exact gather
    return out.bool() if dtype == "bool" else out


def _eager(v: jt.Var) -> jt.Var:
    """Run a collective now.  Jittor executes lazily and may schedule independent ops in another
    order on each process; MPI needs every process to call its collectives in the same order
    (measured: two lazily queued all-reduces failed with MPI_ERR_TRUNCATE)."""
    v.sync()
    return v


def _reduced(tensor: jt.Var, op: str) -> jt.Var:
    if not _in_mpi():
        return tensor
    if op == ReduceOp.SUM:
        return _eager(tensor.mpi_all_reduce("add"))
    if op == ReduceOp.AVG:
        return _eager(tensor.mpi_all_reduce("mean"))
    stacked = _gathered(tensor)
    if op == ReduceOp.MAX:
        return stacked.max(dim=0)
    if op == ReduceOp.MIN:
        return stacked.min(dim=0)
    if op == ReduceOp.PRODUCT:
        return stacked.prod(dim=0)
    raise ValueError(f"unsupported reduce op {op!r}")


def _set(tensor: jt.Var, value: jt.Var) -> None:
    """torch's collectives write into their tensor argument, outside autograd."""
    tensor.assign(value.cast(tensor.dtype).detach())


def _one_rank(rank: Optional[int], group_rank: Optional[int], what: str, name: str,
              default: Optional[int] = None) -> int:
    """The rank a collective names by ``rank`` or ``group_<name>`` (the same numbers: the only
    group is every process), as torch requires: one of them, not both."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"{what}: give {name} or group_{name}, not both")
    chosen = rank if rank is not None else group_rank if group_rank is not None else default
    if chosen is None:
        raise ValueError(f"{what}: {name} or group_{name} is required")
    return chosen


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Wait until every process reaches this call."""
    _check_group(group)
    if _in_mpi():
        _eager(jt.zeros(1).mpi_all_reduce("add"))
    return _finish(async_op)


def all_reduce(tensor: jt.Var, op: str = ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` over every process; each gets the result in place."""
    _check_group(group)
    _set(tensor, _reduced(tensor, op))
    return _finish(async_op)


def reduce(tensor: jt.Var, dst: Optional[int] = None, op: str = ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst: Optional[int] = None):
    """Reduce ``tensor`` to rank ``dst`` (in place; ``group_dst``, the rank in the one group there
    is, names the same process).  torch leaves the other ranks' tensors unspecified; here they
    get the result too."""
    _one_rank(dst, group_dst, "reduce", "dst")
    return all_reduce(tensor, op, group, async_op)


def broadcast(tensor: jt.Var, src: Optional[int] = None, group=None, async_op: bool = False,
              group_src: Optional[int] = None):
    """Copy rank ``src``'s ``tensor`` into every process's ``tensor`` (``group_src``: the same
    rank, counted in the one group there is)."""
    _check_group(group)
    src = _one_rank(src, group_src, "broadcast", "src")
    if _in_mpi():
        _set(tensor, _eager(tensor.mpi_broadcast(src)))
    return _finish(async_op)


def all_gather(tensor_list: List[jt.Var], tensor: jt.Var, group=None, async_op: bool = False):
    """Fill ``tensor_list[i]`` with rank ``i``'s ``tensor``."""
    _check_group(group)
    if len(tensor_list) != _world():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for "
                         f"{_world()} processes")
    stacked = _gathered(tensor)
    for i, t in enumerate(tensor_list):
        _set(t, stacked[i])
    return _finish(async_op)


def all_gather_into_tensor(output_tensor: jt.Var, input_tensor: jt.Var, group=None,
                           async_op: bool = False):
    """Every rank's ``input_tensor`` concatenated along dim 0 into ``output_tensor``."""
    _check_group(group)
    stacked = _gathered(input_tensor)
    _set(output_tensor, stacked.reshape(output_tensor.shape))
    return _finish(async_op)


def _bytes_of(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _gather_bytes(payload: np.ndarray) -> List[bytes]:
    sizes = _gathered(jt.array(np.array([payload.size], dtype=np.int32))).numpy().reshape(-1)
    buf = np.zeros(int(sizes.max()), dtype=np.int32)
    buf[:payload.size] = payload
    rows = _gathered(jt.array(buf)).numpy()
    return [rows[i, :sizes[i]].astype(np.uint8).tobytes() for i in range(len(sizes))]


def all_gather_object(object_list: List[Any], obj: Any, group=None, weights_only: bool = True) -> None:
    """Fill ``object_list[i]`` with rank ``i``'s ``obj`` (pickled between this program's own
    processes, as torch does; ``weights_only`` concerns torch's unpickler of tensors)."""
    _check_group(group)
    for i, data in enumerate(_gather_bytes(_bytes_of(obj))):
        object_list[i] = pickle.loads(data)


def broadcast_object_list(object_list: List[Any], src: Optional[int] = None, group=None, device=None,
                          group_src: Optional[int] = None, weights_only: bool = True) -> None:
    """Replace ``object_list``'s items with rank ``src``'s (pickled between this program's own
    processes, as torch does; ``group_src`` names the same rank)."""
    _check_group(group)
    src = _one_rank(src, group_src, "broadcast_object_list", "src", default=0)
    data = _gather_bytes(_bytes_of(list(object_list)))[src] if _in_mpi() else None
    if data is not None:
        object_list[:] = pickle.loads(data)


# --- data parallel --------------------------------------------------------------------------

# in creation order: every process must run its collectives in the same order, and a WeakSet's
# iteration order depends on addresses
_wrappers: List["weakref.ref[DistributedDataParallel]"] = []


def _live_wrappers() -> List["DistributedDataParallel"]:
    live = [w() for w in _wrappers]
    _wrappers[:] = [w for w, m in zip(_wrappers, live) if m is not None]
    return [m for m in live if m is not None]


class DistributedDataParallel(Module):
    """torch's DDP: the wrapped module as ``self.module``, kept in step across processes.

    Parameters and buffers start from rank 0's; with ``broadcast_buffers`` rank 0's buffers are
    copied to every process before each forward that records gradients (as torch does); after
    each backward outside :meth:`no_sync`, the gradients of its parameters are averaged over the
    processes (:func:`average_gradients`).  ``device_ids``, ``output_device``, ``bucket_cap_mb``,
    ``gradient_as_bucket_view`` and ``static_graph`` concern GPUs and buckets and do not apply.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list=None,
                 batched_grad_copy: bool = False, forward_sync_buffers: bool = True,
                 lazy_bucket_allocation: bool = False, **kw):
        if mixed_precision is not None or delay_all_reduce_named_params or param_to_hook_all_reduce is not None:
            raise NotImplementedError("DistributedDataParallel: mixed_precision, delay_all_reduce_named_params and "
                                      "param_to_hook_all_reduce change what is computed; not supported")
        super().__init__()
        _check_group(process_group)
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        if _in_mpi() and init_sync:  # init_sync=False: torch skips the start-up broadcast too
            _broadcast_from_rank0([*module.parameters(), *_buffers(module)])
        _wrappers.append(weakref.ref(self))

    def execute(self, *args, **kw):
        if (self.broadcast_buffers and self.require_backward_grad_sync and _in_mpi()
                and not jt.flags.no_grad):
            _broadcast_from_rank0(_buffers(self.module))
        return self.module(*args, **kw)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward passes accumulate gradients locally; the first backward after it
        averages the accumulated gradients (torch's ``no_sync``)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Iterator[None]:
        """torch's uneven-inputs context: every process here must run the same number of steps
        (MPI collectives would wait forever otherwise), so this only checks nothing is asked
        that cannot hold."""
        yield


class DataParallel(Module):
    """torch's single-process ``DataParallel``: Jittor runs the module on its one device, so this
    only keeps torch's shape (``self.module``, ``module.``-prefixed state_dict keys)."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module

    def execute(self, *args, **kw):
        return self.module(*args, **kw)


def _buffers(module) -> List[jt.Var]:
    buffers = getattr(module, "buffers", None)
    return list(buffers()) if callable(buffers) else []


def _flat(vs: Sequence[jt.Var]) -> jt.Var:
    dtype = "float64" if any(v.dtype == "float64" for v in vs) else "float32"
    return jt.concat([v.reshape(-1).cast(dtype) for v in vs])


def _unflat(flat: jt.Var, like: Sequence[jt.Var]) -> List[jt.Var]:
    out, start = [], 0
    for v in like:
        n = int(np.prod(v.shape))
        out.append(flat[start:start + n].reshape(v.shape).cast(v.dtype))
        start += n
    return out


def _broadcast_from_rank0(vs: List[jt.Var]) -> None:
    """Give every process rank 0's values of ``vs`` (one collective for all of them)."""
    vs = [v for v in vs if v.numel() > 0]
    if not vs:
        return
    for v, new in zip(vs, _unflat(_eager(_flat(vs).mpi_broadcast(0)), vs)):
        v.update(new.detach())


def average_gradients(grads: Dict[int, jt.Var], reached: Dict[int, bool]) -> None:
    """Average, over the processes, the gradients of every live DDP module's parameters, in place
    in ``grads`` (``{id(param): grad}``), as torch's reducer does after a backward outside
    ``no_sync``.  Called by the gradient store (:mod:`shims.autograd`) after each backward, with
    every leaf of the backward (``grads`` holds the accumulated ``.grad`` each would get).
    ``reached`` says per parameter whether this process's loss used it; a module no process's
    loss used is left alone; a parameter no process used keeps no gradient; one some processes
    did not use counts zero there, which torch allows only with ``find_unused_parameters=True``."""
    if not _in_mpi():
        return
    for ddp in _live_wrappers():
        if not ddp.require_backward_grad_sync:
            continue
        params = [p for p in ddp.module.parameters() if id(p) in grads]
        if not params:
            continue
        used = jt.array(np.array([1 if reached.get(id(p)) else 0 for p in params], dtype=np.int32))
        used_anywhere = used.mpi_all_reduce("add").numpy()
        local = used.numpy()
        if not used_anywhere.any():
            continue  # no process's loss used this module (its forward did not run): no reduction
        if not ddp.find_unused_parameters and (local == 0).any():
            names = [n for n, p in ddp.module.named_parameters()
                     if id(p) in grads and not reached.get(id(p))]
            raise RuntimeError(
                "DistributedDataParallel: parameters took no part in this process's loss "
                f"({', '.join(names[:5])}); torch stops here too. Pass "
                "find_unused_parameters=True to DistributedDataParallel if that is intended.")
        kept = [p for p, anywhere in zip(params, used_anywhere) if anywhere]
        if not kept:
            continue
        # one bucket, as torch's reducer: one collective per backward, in a fixed order
        flat = _eager(_flat([grads[id(p)] for p in kept]).mpi_all_reduce("mean"))
        for p, g in zip(kept, _unflat(flat, [grads[id(p)] for p in kept])):
            grads[id(p)] = g
            reached[id(p)] = True


def spawn(fn: Callable, args: Sequence[Any] = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn"):
    """torch's ``multiprocessing.spawn``: ``fn(rank, *args)`` for this process's rank.  Jittor's
    processes come from ``mpirun -np nprocs``; without it only ``nprocs == 1`` runs (in this
    process), otherwise :class:`LaunchError` gives the command."""
    if nprocs != _world():
        raise _launch_error(nprocs, f"spawn(nprocs={nprocs})")
    fn(_rank(), *args)
    return None


_start_method_set = False


def set_start_method(method: str, force: bool = False) -> None:
    """``torch.multiprocessing.set_start_method``: Python's (MPI starts the training processes).
    As under torch, the script's first call succeeds and a second one without ``force`` raises;
    Python's own check would refuse the first too, because importing Jittor makes a process
    object of the default context, which fixes Python's start method before the script asks."""
    global _start_method_set
    if _start_method_set and not force:
        raise RuntimeError("context has already been set")
    multiprocessing.set_start_method(method, force=True)
    _start_method_set = True


_autograd.use_distributed(sys.modules[__name__])  # backward averages DDP gradients under MPI
