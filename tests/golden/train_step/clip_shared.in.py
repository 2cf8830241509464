import torch


def clip_shared(loss, params, opt_a, opt_b):
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt_a.step()
    opt_b.step()
