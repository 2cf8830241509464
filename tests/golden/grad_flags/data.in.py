import torch


def ema(model, model_ema, beta, dataset):
    for p, p_ema in zip(model.parameters(), model_ema.parameters()):
        p_ema.data.copy_(p.data.lerp(p_ema.data, beta))
    for m in model.modules():
        m.weight.data.mul_(0.5)
    norm = model.weight.data.clone()
    return norm, dataset.data
