import shims
from shims.data import Dataset, RandomSampler
DistributedSampler = shims.unported("torch.utils.data.distributed.DistributedSampler")


class Frames(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.paths[i]


def loaders(paths, args, collate):
    ds = Frames(paths)
    train = shims.data.DataLoader(ds, args.batch_size, sampler=RandomSampler(ds), num_workers=args.n_threads,
                       pin_memory=True, drop_last=True, collate_fn=collate)
    test = shims.data.DataLoader(dataset=ds, batch_size=1, shuffle=False)
    dist = shims.data.DataLoader(ds, sampler=DistributedSampler(ds))  # jtport: JT106 torch.utils.data.distributed.DistributedSampler: Jittor shards data across MPI processes itself; drop the sampler and run under mpirun
    return train, test, dist
