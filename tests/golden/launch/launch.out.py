import argparse
import os

import shims


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    local_rank = int(os.environ["LOCAL_RANK"])
    shims.distributed.init_process_group("gloo", rank=rank, world_size=world)
    return local_rank


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)  # torch.distributed.launch sets it  # jtport: JT104 --local_rank: mpirun passes no --local_rank (torch.distributed.launch did): it keeps its default; read int(os.environ['LOCAL_RANK']) (set under mpirun by import shims) or shims.distributed.get_local_rank()
    parser.add_argument("--world", type=int, default=2)
    args = parser.parse_args()
    shims.distributed.spawn(worker, args=(args.world,), nprocs=2, join=True)
