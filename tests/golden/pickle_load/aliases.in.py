import pickle as pk
from pickle import Unpickler, load as pload

import torch


def read(f, data):
    x = pload(f)
    y = pk.loads(data)
    u = Unpickler(f)
    return torch.as_tensor(x), y, u


def shadowed(pickle):
    return pickle.load(1)  # a parameter, not the module
