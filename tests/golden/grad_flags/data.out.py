import shims


def ema(model, model_ema, beta, dataset):
    for p, p_ema in zip(model.parameters(), model_ema.parameters()):
        p_ema.assign(p.detach().lerp(p_ema.data, beta))
    for m in model.modules():
        m.weight.mul_(0.5)
    norm = model.weight.detach().clone()
    return norm, dataset.data
