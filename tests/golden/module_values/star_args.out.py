import shims


def noise_like(shape, n):
    # star arguments hide the call's arguments: the row's policy is applied when the call runs
    zeros = shims.namespace("torch").zeros(*shape)
    noise = shims.namespace("torch").randn(n, *shape)
    return zeros, noise
