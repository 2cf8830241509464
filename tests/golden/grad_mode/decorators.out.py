import shims


@shims.no_grad
def ema(a, b):
    return shims.lerp(a, b, 0.5)


def stat(x, name):
    return getattr(shims.namespace("torch"), name)(x)


def move(x):
    # to the GPU
    return shims.relu(x)
