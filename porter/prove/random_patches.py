"""Shared random draws: the port and torch draw the same numbers where the model draws at run time
(:func:`shared_random`, :func:`patched_randn`, from :class:`porter.prove.common.SeededStream`).
Runs in ``.venv``.
"""
import contextlib
from typing import Any, Callable, Dict, Mapping

import numpy as np

import shims
import jittor as jt

from porter.prove import common


Arrays = Dict[str, np.ndarray]
Forward = Callable[[Any, Mapping[str, Any]], Any]


@contextlib.contextmanager
def shared_random(stream: common.SeededStream):
    """Within the block, ``jt.randn``, ``jt.rand`` and ``jt.init.gauss_/gauss/uniform_/uniform``
    (and ``shims``' randn/rand) draw from ``stream``: the numbers ``torch_dump.shared_random``
    gave to the same calls, in the same order, on the torch side."""
    init = jt.init

    def gauss_(var, mean=0.0, std=1.0):
        return var.assign(jt.array(float(mean) + float(std) * stream.normal(tuple(var.shape))).cast(var.dtype))

    def uniform_(var, low=0.0, high=1.0):
        return var.assign(jt.array(stream.uniform(tuple(var.shape), float(low), float(high))).cast(var.dtype))

    def gauss(shape, dtype="float32", mean=0.0, std=1.0):
        return jt.array(float(mean) + float(std) * stream.normal(common.size_args((shape,)))).cast(dtype)

    def uniform(shape, dtype="float32", low=0.0, high=1.0):
        return jt.array(stream.uniform(common.size_args((shape,)), float(low), float(high))).cast(dtype)

    def rand(*size, dtype="float32", **_):
        return jt.array(stream.uniform(common.size_args(size))).cast(dtype)

    patches = [(init, "gauss_", gauss_), (init, "uniform_", uniform_), (init, "gauss", gauss),
               (init, "uniform", uniform), (jt, "rand", rand)]
    if hasattr(shims, "rand"):
        patches.append((shims, "rand", rand))
    with common.patched(patches), patched_randn(stream, shims):
        yield stream


@contextlib.contextmanager
def patched_randn(stream: common.SeededStream, *owners: Any):
    """Within the block, ``randn(*size)`` of ``jittor`` (and of each extra ``owner`` module,
    e.g. ``shims`` if converted code calls a shim) draws from ``stream``: the same numbers the
    torch side's ``torch_dump.patched_randn`` gave to the same calls."""
    def randn(*size, dtype=None, **_):
        v = jt.array(stream.normal(common.size_args(size)))
        return v.cast(dtype) if dtype is not None else v

    with common.patched([(o, "randn", randn) for o in (jt, *owners) if hasattr(o, "randn")]):
        yield stream
