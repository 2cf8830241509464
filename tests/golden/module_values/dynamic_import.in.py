import importlib

import torch


def backend(name):
    tm = importlib.import_module("torch")  # torch itself at run time: marked
    nn = __import__("torch.nn")
    other = importlib.import_module(name)  # not known to be torch
    return tm, nn, other, torch.zeros(1)
