import shims


def reverse(z, x):
    a = shims.flip(z, dims=[-1])
    b = shims.flip(x, [0, 1])
    c = shims.flip(x, dims=(0,))
    d = shims.flip(x, 1)
    return a, b, c, d


def reverse_more(x):
    return shims.flip(x, 0, -1), shims.flip(x, (-2,))
