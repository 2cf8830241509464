import torch


def save(nets, optims, step, path):
    torch.save({"nets": {k: v.state_dict() for k, v in nets.items()}, "step": step}, path)


def load(nets, optimizer, path):
    ckpt = torch.load(path, map_location=torch.device("cpu"))
    for name, net in nets.items():
        net.load_state_dict(ckpt["nets"][name], strict=False)
    nets["G"].load_state_dict(ckpt["nets"]["G"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"]
