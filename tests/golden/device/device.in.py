import torch
import torch.nn as nn
import torch.distributed as dist


def main(args):
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.cuda.set_device(args.local_rank)
    model = nn.Linear(4, 2).to(device)
    model.cuda()
    model = nn.DataParallel(model, device_ids=[0, 1])
    head = model.module
    x = torch.zeros(8, 4, device=device).to(device, non_blocking=True)
    y = model(x.cuda()).cpu().numpy()
    z = x.to(torch.float32)
    w = x.to(device, torch.float32)
    u = x.to(args.target)
    if dist.get_rank() == 0:
        dist.all_reduce(x)
    torch.cuda.synchronize()
    n_gpus = torch.cuda.device_count()
    return y, z, w, u, head, dist.get_world_size(), n_gpus


if __name__ == "__main__":
    main(None)
