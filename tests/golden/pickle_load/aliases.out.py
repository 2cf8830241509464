import pickle as pk
from pickle import Unpickler, load as pload

import shims


def read(f, data):
    x = shims.pickle.load(f)
    y = shims.pickle.loads(data)
    u = shims.pickle.Unpickler(f)
    return shims.as_tensor(x), y, u


def shadowed(pickle):
    return pickle.load(1)  # a parameter, not the module
