import shims


def bias(x, b):
    with shims.profiler.record_function('bias'):
        return x + b


def get_plugin(name, sources):
    try:
        return shims.cpp_extension.load(name=name, sources=sources, verbose=False)
    except RuntimeError:
        return None


def limits(x):
    lo, hi = shims.runtime.finfo(x.dtype).min, shims.runtime.finfo(x.dtype).max
    new = shims.runtime.torch_version.startswith('1.9')
    return shims.clamp(x, lo, hi), new


try:
    symbolic_assert = shims.runtime.symbolic_assert
except AttributeError:
    symbolic_assert = shims.runtime.symbolic_assert


def constant_dtype(dtype=None):
    return shims.runtime.get_default_dtype() if dtype is None else dtype


def use_custom_op(enabled):
    return enabled and shims.runtime.cudnn_enabled
