"""Run under ``mpirun -np 2``: torch.distributed's semantics of ``shims.distributed``, checked
on each rank (exit status 1 with the failed check's message otherwise).

Expected values are computed here from every rank's inputs, which each rank can rebuild
(rank r's tensor is a function of r), so no torch is needed.
"""
import sys

import numpy as np

import shims
import jittor as jt
from shims import distributed as dist


def check(cond, what):
    if not cond:
        print(f"rank {dist.get_rank()}: FAILED {what}", flush=True)
        sys.exit(1)


def value(r):
    return np.array([1.0 + r, -2.0 * r, 3.0], dtype=np.float32)


class Affine(shims.nn.Module):
    def __init__(self, rank):
        super().__init__()
        self.fc = jt.nn.Linear(3, 1)
        self.register_buffer("count", jt.array(np.array([10.0 + rank], dtype=np.float32)))

    def execute(self, x):
        return self.fc(x)


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    check(world == 2, f"world size {world}")
    all_vals = np.stack([value(r) for r in range(world)])

    for op, want in [(dist.ReduceOp.SUM, all_vals.sum(0)), (dist.ReduceOp.AVG, all_vals.mean(0)),
                     (dist.ReduceOp.MAX, all_vals.max(0)), (dist.ReduceOp.MIN, all_vals.min(0)),
                     (dist.ReduceOp.PRODUCT, all_vals.prod(0))]:
        t = jt.array(value(rank))
        dist.all_reduce(t, op=op)
        check(np.allclose(t.numpy(), want), f"all_reduce {op}: {t.numpy()} != {want}")

    t = jt.array(value(rank))
    dist.broadcast(t, src=1)
    check(np.array_equal(t.numpy(), value(1)), "broadcast from rank 1")
    t = jt.array(value(rank))
    dist.broadcast(t, None, None, False, 1)  # torch 2.x's group_src, by position
    check(np.array_equal(t.numpy(), value(1)), "broadcast from group rank 1")
    try:
        dist.broadcast(t, src=0, group_src=0)
        check(False, "broadcast with src and group_src did not raise")
    except ValueError:
        pass

    outs = [jt.zeros(3) for _ in range(world)]
    dist.all_gather(outs, jt.array(value(rank)))
    check(all(np.array_equal(o.numpy(), value(r)) for r, o in enumerate(outs)), "all_gather")

    flat = jt.zeros(3 * world)
    dist.all_gather_into_tensor(flat, jt.array(value(rank)))
    check(np.array_equal(flat.numpy(), all_vals.reshape(-1)), "all_gather_into_tensor")

    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "name": "x" * (rank + 1)})
    check(objs == [{"rank": r, "name": "x" * (r + 1)} for r in range(world)], f"all_gather_object {objs}")
    lst = [rank, f"from {rank}"]
    dist.broadcast_object_list(lst, src=0)
    check(lst == [0, "from 0"], f"broadcast_object_list {lst}")
    lst = [rank]
    dist.broadcast_object_list(lst, group_src=1)
    check(lst == [1], f"broadcast_object_list from group rank 1: {lst}")
    dist.barrier(None, False, None, None)  # torch 2.x's timeout, by position

    # DDP: weights and buffers start from rank 0's; gradients averaged after each backward
    # outside no_sync; inside no_sync they accumulate locally, and the next synced backward
    # averages the accumulated sum (torch's reducer all-reduces .grad)
    jt.set_global_seed(100 + rank)  # different initial weights on each rank
    lin = Affine(rank)
    w0 = lin.fc.weight.numpy().copy()
    model = dist.DistributedDataParallel(lin)
    check(np.array_equal(lin.count.numpy(), [10.0]), f"buffer not from rank 0: {lin.count.numpy()}")
    rank0_w = jt.array(w0)
    dist.broadcast(rank0_w, 0)
    check(np.array_equal(lin.fc.weight.numpy(), rank0_w.numpy()), "weights not from rank 0")

    opt = shims.optim.SGD(model.parameters(), lr=1.0)
    xs = [jt.array(np.array([[1.0 + r, 2.0, -1.0]], dtype=np.float32)) for r in range(world)]
    w_start = lin.fc.weight.numpy().copy()
    with model.no_sync():
        opt.backward(model(xs[rank]).sum())
    opt.backward((model(xs[rank]) * 2).sum())
    opt.step()
    # d/dw of sum(x w^T + b) is x; local grad on rank r: x_r (no_sync) + 2 x_r; averaged over ranks
    want = w_start - np.mean([3 * xs[r].numpy() for r in range(world)], axis=0)
    check(np.allclose(lin.fc.weight.numpy(), want, atol=1e-6),
          f"no_sync accumulation: {lin.fc.weight.numpy()} != {want}")

    # a parameter unused by this rank's loss: torch raises unless find_unused_parameters=True
    def two_heads():
        m = shims.nn.Module()
        m.a = jt.nn.Linear(3, 1)
        m.b = jt.nn.Linear(3, 1)
        return m

    strict = two_heads()
    strict_ddp = dist.DistributedDataParallel(strict)
    opt2 = shims.optim.SGD(strict_ddp.parameters(), lr=1.0)
    try:
        opt2.backward(strict.a(xs[rank]).sum())
    except RuntimeError as e:
        check("find_unused_parameters" in str(e), f"unused-parameter error text: {e}")
    else:
        check(False, "a parameter unused by the loss did not raise without find_unused_parameters")

    loose = two_heads()
    loose_ddp = dist.DistributedDataParallel(loose, find_unused_parameters=True)
    opt3 = shims.optim.SGD(loose_ddp.parameters(), lr=1.0)
    b_start = loose.b.weight.numpy().copy()
    # rank 0 uses only a, rank 1 uses a and b: b's gradient is x_1 / 2 on every rank
    loss = loose.a(xs[rank]).sum() + (loose.b(xs[rank]).sum() if rank == 1 else 0)
    opt3.step(loss)
    check(np.allclose(loose.b.weight.numpy(), b_start - xs[1].numpy() / 2, atol=1e-6),
          f"partially used parameter: {loose.b.weight.numpy()}")

    try:
        dist.init_process_group("gloo", world_size=4)
    except dist.LaunchError as e:
        check("mpirun" in str(e) and "-np 4" in str(e), f"launch error text: {e}")
    else:
        check(False, "world_size=4 under mpirun -np 2 did not raise")
    dist.destroy_process_group()
    print(f"rank {rank}: all checks passed", flush=True)


if __name__ == "__main__":
    main()
