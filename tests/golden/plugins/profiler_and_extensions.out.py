import shims


def bias(x, b):
    with shims.profiler.record_function('bias'):
        return x + b


def get_plugin(name, sources):
    try:
        return shims.cpp_extension.load(name=name, sources=sources, verbose=False)
    except RuntimeError:
        return None
