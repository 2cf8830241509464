import torch
import torch.utils.cpp_extension


def bias(x, b):
    with torch.autograd.profiler.record_function('bias'):
        return x + b


def get_plugin(name, sources):
    try:
        return torch.utils.cpp_extension.load(name=name, sources=sources, verbose=False)
    except RuntimeError:
        return None


def limits(x):
    lo, hi = torch.finfo(x.dtype).min, torch.finfo(x.dtype).max
    new = torch.__version__.startswith('1.9')
    return x.clamp(lo, hi), new


try:
    symbolic_assert = torch._assert
except AttributeError:
    symbolic_assert = torch.Assert


def constant_dtype(dtype=None):
    return torch.get_default_dtype() if dtype is None else dtype


def use_custom_op(enabled):
    return enabled and torch.backends.cudnn.enabled
