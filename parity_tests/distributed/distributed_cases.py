"""Cases shared by both sides of the distributed parity tests (plain Python, no torch/Jittor)."""

# (len(dataset), num_replicas, shuffle, seed, drop_last): even and uneven splits, padding by
# repetition (5 over 4), more replicas than samples (3 over 5), drop_last cutting
SAMPLER_CASES = [
    (10, 2, True, 0, False),
    (11, 2, True, 3, False),
    (11, 2, True, 3, True),
    (5, 4, True, 1, False),
    (3, 5, True, 0, False),
    (7, 3, False, 0, False),
    (7, 3, False, 0, True),
    (100, 4, True, 12345, False),
]

# the DDP script's dataset: samples, input and output width (22 = 2 ranks x 11, uneven batches)
DDP_DATA = (22, 4, 2)


def case_key(n, replicas, shuffle, seed, drop_last, rank, epoch) -> str:
    """The npz key of one sampler shard."""
    return f"n{n}_r{replicas}_s{int(shuffle)}_seed{seed}_d{int(drop_last)}_rank{rank}_e{epoch}"


def shard_table(sampler_class) -> dict:
    """``{case_key: [indices]}`` for every case, rank and epoch, drawn with ``sampler_class``
    (torch's ``DistributedSampler`` on one side, ``shims.data.DistributedSampler`` on the other)."""
    table = {}
    for n, replicas, shuffle, seed, drop_last in SAMPLER_CASES:
        for rank in range(replicas):
            s = sampler_class(list(range(n)), num_replicas=replicas, rank=rank, shuffle=shuffle,
                              seed=seed, drop_last=drop_last)
            for epoch in (0, 1, 7):
                s.set_epoch(epoch)
                indices = list(s)
                assert len(indices) == len(s)
                table[case_key(n, replicas, shuffle, seed, drop_last, rank, epoch)] = indices
    return table
