"""What StyleGAN2-ADA's custom-op plumbing meets under Jittor: ``record_function`` scopes do
nothing, and building a torch extension fails the way upstream's fallback expects."""
import warnings

import pytest

import shims
from shims.cpp_extension import ExtensionUnavailable


def test_record_function_is_a_transparent_context_and_decorator():
    with shims.profiler.record_function("scope") as rf:
        value = 3
    assert rf.name == "scope" and value == 3

    @shims.profiler.record_function("deco")
    def f(x):
        return x + 1
    assert f(1) == 2


def test_record_function_lets_exceptions_through():
    with pytest.raises(KeyError), shims.profiler.record_function("scope"):
        raise KeyError("k")


def test_extension_load_raises_naming_the_plugin():
    with pytest.raises(RuntimeError, match="bias_act_plugin.*bias_act.cu"):
        shims.cpp_extension.load(name="bias_act_plugin", sources=["bias_act.cpp", "bias_act.cu"])
    assert issubclass(ExtensionUnavailable, RuntimeError)


def test_upstream_style_init_falls_back_to_reference():
    """StyleGAN2-ADA's ``_init()`` pattern: a bare except around the build, then
    ``_plugin is not None`` decides between the CUDA kernel and ``impl='ref'``."""
    plugin = None
    try:
        plugin = shims.cpp_extension.load(name="upfirdn2d_plugin", sources=["upfirdn2d.cu"])
    except Exception:  # noqa: BLE001  (upstream's bare except)
        warnings.warn("Failed to build CUDA kernels for upfirdn2d. Falling back", stacklevel=2)
    assert plugin is None


def test_finfo_gives_torch_limits_for_jittor_dtypes():
    import jittor as jt
    import numpy as np
    assert shims.runtime.finfo(jt.float32).max == np.finfo(np.float32).max
    assert shims.runtime.finfo(jt.float16).eps == np.finfo(np.float16).eps
    assert shims.runtime.finfo(jt.float64).min == np.finfo(np.float64).min
    assert shims.runtime.finfo().bits == 32
    with pytest.raises(TypeError, match="not a floating dtype"):
        shims.runtime.finfo(jt.int32)


def test_torch_version_sends_version_gated_code_to_its_fallback():
    """StyleGAN2-ADA's conv2d_gradfix uses its custom op only on torch 1.7-1.9."""
    assert isinstance(shims.runtime.torch_version, str)
    assert not any(shims.runtime.torch_version.startswith(x) for x in ["1.7.", "1.8.", "1.9"])


def test_default_dtype_and_symbolic_assert():
    import jittor as jt
    assert shims.runtime.get_default_dtype() == jt.float32
    shims.runtime.symbolic_assert(jt.array([1.0]) > 0, "fine")
    with pytest.raises(AssertionError, match="Wrong size"):
        shims.runtime.symbolic_assert(jt.array([1.0]) < 0, "Wrong size")
    with pytest.raises(AssertionError):
        shims.runtime.symbolic_assert(False)


def test_cudnn_reads_as_disabled():
    assert shims.runtime.cudnn_enabled is False
