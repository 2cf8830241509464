"""A data-parallel training script as torch users write it (the test converts it unmodified).

torch: ``torchrun --nproc_per_node 2 ddp_train.py ...`` (or one process without torchrun).
Converted: ``mpirun -np 2 python ddp_train.py ...``.
Trains a small MLP with SGD+momentum on a fixed dataset sharded by DistributedSampler, every
process taking ``global_batch / world`` samples a step; rank 0 saves the weights at the end.
"""
import argparse

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Points(Dataset):
    def __init__(self, path):
        data = np.load(path)
        self.x, self.y = data["x"], data["y"]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i], i


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--global-batch", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    model = Net()
    model.load_state_dict(torch.load(args.init))
    model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    dataset = Points(args.data)
    sampler = DistributedSampler(dataset, shuffle=True, seed=3)
    loader = DataLoader(dataset, batch_size=args.global_batch // world, sampler=sampler)

    seen = []
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y, idx in loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen.append(idx.numpy())
    total = torch.tensor([float(loss.item())])
    dist.all_reduce(total)
    if rank == 0:
        torch.save(model.module.state_dict(), args.out)
    np.save(f"{args.out}.seen{rank}.npy", np.concatenate(seen))
    np.save(f"{args.out}.loss{rank}.npy", total.numpy())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
