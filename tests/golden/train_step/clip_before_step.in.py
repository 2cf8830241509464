import torch
from torch import nn


def gen_update(models, gen, gen_opt, batch):
    gen_opt.zero_grad()
    loss = models(batch, mode="gen")  # HiSD: backward() ran inside forward
    nn.utils.clip_grad_norm_(gen.parameters(), 100)
    gen_opt.step()
    return loss


def no_step(params):
    torch.nn.utils.clip_grad_norm_(params, 1.0)
