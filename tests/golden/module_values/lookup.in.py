import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim


def build(cfg, params):
    act = getattr(F, cfg.act)  # F.leaky_relu: torch's negative_slope, resolved through the table
    norm = getattr(nn, cfg.norm)(8)
    opt = getattr(torch.optim, cfg.optim)(params, lr=1e-3)
    sched = torch.optim.lr_scheduler.__dict__[cfg.sched](opt, 10)
    reduce = vars(torch)[cfg.reduce]  # "var": torch's unbiased var, not Jittor's
    return act, norm, opt, sched, reduce, hasattr(torch, "compile")


def apply(x, backend=F):
    return backend.relu(x)
