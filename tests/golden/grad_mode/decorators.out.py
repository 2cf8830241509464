import shims
torch = shims.unported("torch")


@shims.no_grad
def ema(a, b):
    return shims.lerp(a, b, 0.5)


def stat(x, name):
    return getattr(torch, name)(x)  # jtport: JT001 torch: the module itself used as a value (getattr(torch, name), vars(torch)[...]) would reach Jittor's namesakes, not the mapped APIs (Jittor's var is biased): spell the API out


def move(x):
    # to the GPU
    return shims.relu(x)
