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
    lo, hi = shims.typeinfo.finfo(x.dtype).min, shims.typeinfo.finfo(x.dtype).max
    new = shims.typeinfo.torch_version.startswith('1.9')
    return shims.clamp(x, lo, hi), new
