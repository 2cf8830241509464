import shims


def build(cfg, params):
    act = getattr(shims.namespace("torch.nn.functional"), cfg.act)  # F.leaky_relu: torch's negative_slope, resolved through the table
    norm = getattr(shims.namespace("torch.nn"), cfg.norm)(8)
    opt = getattr(shims.namespace("torch.optim"), cfg.optim)(params, lr=1e-3)
    sched = shims.namespace("torch.optim.lr_scheduler").__dict__[cfg.sched](opt, 10)
    reduce = vars(shims.namespace("torch"))[cfg.reduce]  # "var": torch's unbiased var, not Jittor's
    return act, norm, opt, sched, reduce, hasattr(shims.namespace("torch"), "compile")


def apply(x, backend=shims.namespace("torch.nn.functional")):
    return shims.relu(backend, x)
