import shims
import jittor as jt
from jittor import nn


def main(args):
    device = shims.runtime.Device("cuda" if jt.has_cuda else "cpu")
    model = nn.Linear(4, 2)
    model = shims.distributed.DataParallel(model, device_ids=[0, 1])
    head = model.module
    x = jt.zeros(8, 4)
    y = model(x).numpy()
    z = x.to(jt.float32)
    w = x.to(jt.float32)
    u = shims.tensor_to(x, args.target)
    if shims.distributed.get_rank() == 0:
        shims.distributed.all_reduce(x)
    jt.sync_all(True)
    n_gpus = (1 if jt.has_cuda else 0)
    return y, z, w, u, head, shims.distributed.get_world_size(), n_gpus


if __name__ == "__main__":
    jt.flags.use_cuda = jt.has_cuda
    main(None)
