import shims


def save(nets, optims, step, path):
    shims.save({"nets": {k: v.state_dict() for k, v in nets.items()}, "step": step}, path)


def load(nets, optimizer, path):
    ckpt = shims.load(path, map_location=shims.runtime.Device("cpu"))
    for name, net in nets.items():
        shims.load_state_dict(net, ckpt["nets"][name], strict=False)
    shims.load_state_dict(nets["G"], ckpt["nets"]["G"])
    optimizer.load_state_dict(ckpt["optimizer"])  # jtport: JT105 load_state_dict: torch optimizer/scheduler state does not load into a Jittor optimizer: re-create the state or drop this line
    return ckpt["step"]
