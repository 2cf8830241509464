"""torch's padding layers of every rank and mode (``ConstantPad1d`` ... ``CircularPad3d``).
"""
from __future__ import annotations



from ..ops import functional as F
from .module import Module

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad3d", "ReflectionPad1d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"
]


def _ntuple(padding, n: int, cls: str):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(int(p) for p in padding)
    if len(padding) != 2 * n:
        raise ValueError(f"{cls}: padding must be an int or a {2 * n}-tuple, got {padding}")
    return padding


class _PadNd(Module):
    n = 1
    mode = "constant"

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        self.padding = _ntuple(padding, self.n, type(self).__name__)
        self.value = value

    def execute(self, input):
        return F.pad(input, self.padding, self.mode, self.value if self.mode == "constant" else None)


def _pad_class(name: str, n: int, mode: str, doc: str, with_value: bool):
    def __init__(self, padding, value: float = 0.0):
        _PadNd.__init__(self, padding, value)

    def __init_novalue__(self, padding):
        _PadNd.__init__(self, padding, 0.0)

    cls = type(name, (_PadNd,), {"n": n, "mode": mode, "__doc__": doc,
                                  "__init__": __init__ if with_value else __init_novalue__})
    return cls


ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "``torch.nn.ConstantPad1d(padding, value)``.", True)
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "``torch.nn.ConstantPad2d(padding, value)`` (any float "
                           "value; Jittor's rejects one).", True)
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", "``torch.nn.ConstantPad3d(padding, value)``.", True)
ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", "``torch.nn.ZeroPad1d(padding)``.", False)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", "``torch.nn.ZeroPad3d(padding)``.", False)
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "``torch.nn.ReflectionPad1d(padding)``.", False)
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", "``torch.nn.ReflectionPad3d(padding)``.", False)
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "``torch.nn.ReplicationPad1d(padding)``.", False)
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", "``torch.nn.ReplicationPad3d(padding)``.", False)
CircularPad1d = _pad_class("CircularPad1d", 1, "circular", "``torch.nn.CircularPad1d(padding)``.", False)
CircularPad2d = _pad_class("CircularPad2d", 2, "circular", "``torch.nn.CircularPad2d(padding)``.", False)
CircularPad3d = _pad_class("CircularPad3d", 3, "circular", "``torch.nn.CircularPad3d(padding)``.", False)
