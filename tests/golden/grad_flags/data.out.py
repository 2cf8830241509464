import shims


def ema(model, model_ema, beta, dataset):
    for p, p_ema in zip(model.parameters(), model_ema.parameters()):
        p_ema.assign(shims.views.detach_view(p).lerp(p_ema.data, beta))
    for m in model.modules():
        m.weight.mul_(0.5)
    norm = shims.data_of(model.weight).clone()
    return norm, dataset.data
