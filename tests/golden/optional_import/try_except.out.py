import shims
try:
    from jittor import nn as F
except ImportError:  # torch is optional here
    torch = None
    F = None


def act(x):
    if shims.namespace("torch") is None:
        raise RuntimeError("needs torch")
    return shims.sum(F.relu(shims.relu(x)), 1)

