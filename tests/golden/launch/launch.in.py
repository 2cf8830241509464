import argparse
import os

import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    return local_rank


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)  # torch.distributed.launch sets it
    parser.add_argument("--world", type=int, default=2)
    args = parser.parse_args()
    mp.spawn(worker, args=(args.world,), nprocs=2, join=True)
