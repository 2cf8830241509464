import shims
import jittor as jt
from jittor import nn
dist = shims.unported("torch.distributed")


def main(args):
    device = "cuda" if jt.has_cuda else "cpu"
    model = nn.Linear(4, 2)
    head = model
    x = jt.zeros(8, 4)
    y = model(x).numpy()
    z = x.to(jt.float32)
    w = x.to(jt.float32)
    u = x.to(args.target)  # jtport: JT104 torch.Tensor.to: cannot tell whether this .to() moves (drop it) or casts (keep it): convert by hand
    if jt.rank == 0:
        dist.all_reduce(x)  # jtport: JT001 torch.distributed.all_reduce: no MPI mapping in this pinned table
    jt.sync_all(True)
    n_gpus = (1 if jt.has_cuda else 0)
    return y, z, w, u, head, jt.world_size, n_gpus


if __name__ == "__main__":
    jt.flags.use_cuda = jt.has_cuda
    main(None)
