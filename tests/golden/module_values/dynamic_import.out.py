import importlib

import shims
import jittor as jt


def backend(name):
    tm = importlib.import_module("torch")  # torch itself at run time: marked  # jtport: JT001 torch: imports torch at run time, which converted code never does: use the module's Jittor/shims port (shims.namespace(name) looks torch's names up in jtport's table)
    nn = __import__("torch.nn")  # jtport: JT001 torch.nn: imports torch at run time, which converted code never does: use the module's Jittor/shims port (shims.namespace(name) looks torch's names up in jtport's table)
    other = importlib.import_module(name)  # not known to be torch
    return tm, nn, other, jt.zeros(1)
