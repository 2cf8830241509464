"""What converted code reaches at run time through torch names the converter could not see:
torch classes as values (``shims.namespace``), compile markers (``shims.jit``), placeholders
(``shims.unported``), subscripted data classes, Var members by the table
(``shims.var_fallback``) and 64-bit data kept exact (``shims.tensor``)."""
import numpy as np
import pytest

import shims  # (first: Jittor's settings)
import jittor as jt
from shims import jit
from shims.namespace import namespace
from shims.unported import UnportedAttributeError, UnportedError, unported


def test_torch_class_as_value_takes_torchs_arguments():
    relu = namespace("torch.nn").ReLU  # act_layer=nn.ReLU ... act_layer(inplace=True)
    layer = relu(inplace=True)
    assert isinstance(layer, jt.nn.ReLU)  # isinstance against Jittor's class still holds
    assert layer(jt.array([-1.0, 2.0])).numpy().tolist() == [0.0, 2.0]
    assert namespace("torch.nn").ReLU is relu  # one class per name: isinstance against it works too


def test_torch_class_value_recognises_the_layers_converted_calls_build():
    """minGPT: ``whitelist = (torch.nn.Linear,)`` (a value: the policy class) then
    ``isinstance(m, whitelist)`` over layers built by converted calls (Jittor's own class)."""
    linear = namespace("torch.nn").Linear
    assert isinstance(jt.nn.Linear(3, 2), linear) and issubclass(jt.nn.Linear, linear)
    assert not isinstance(jt.nn.ReLU(), linear) and not issubclass(jt.nn.ReLU, linear)
    assert isinstance(linear(3, 2), (linear,)) and isinstance(linear(3, 2), jt.nn.Linear)


def test_from_numpy_takes_an_ndarray_subclass(tmp_path):
    """nanoGPT reads its tokens through ``np.memmap`` (an ndarray subclass, even after ``astype``)."""
    np.arange(10, dtype=np.uint16).tofile(tmp_path / "t.bin")
    data = np.memmap(tmp_path / "t.bin", dtype=np.uint16, mode="r")
    x = shims.from_numpy(data[2:6].astype(np.int64))
    assert x.numpy().tolist() == [2, 3, 4, 5]


def test_subclass_of_torch_linear_passes_device_and_dtype_positionally():
    class Linear(namespace("torch.nn").Linear):
        def __init__(self, a, b, bias=True, device=None, dtype=None):
            super().__init__(a, b, bias, device, dtype)

    layer = Linear(3, 2, True, None, None)
    assert tuple(layer.weight.shape) == (2, 3) and isinstance(layer, jt.nn.Linear)
    wide = Linear(3, 2, False, "cpu", jt.float64)
    assert str(wide.weight.dtype) == "float64" and wide.bias is None


def test_factory_with_hidden_keywords():
    dd = {"device": None, "dtype": None}
    assert tuple(namespace("torch").empty(1, 1, 4, **dd).shape) == (1, 1, 4)
    z = namespace("torch").zeros(2, device="cpu", dtype=jt.float64)
    assert str(z.dtype) == "float64" and z.numpy().tolist() == [0.0, 0.0]
    assert tuple(namespace("torch.nn").LayerNorm(4, **dd)(jt.ones((2, 4))).shape) == (2, 4)


def test_factory_size_keyword_reaches_jittors_star_shape():
    """``torch.empty(size=(4, 3))`` (pyGAT): Jittor's factories take ``*shape``, no ``size=``."""
    torch = namespace("torch")
    dd = {"dtype": jt.float64}
    assert torch.empty(size=(4, 3)).shape == [4, 3]
    z = torch.zeros(size=[2, 5], **dd)
    assert z.shape == [2, 5] and z.dtype == jt.float64 and float(z.sum()) == 0.0


def test_compile_markers_are_the_identity():
    def f(x):
        return x + 1

    assert jit.identity_decorator(f) is f  # @torch.jit.ignore, @torch.fx.wrap
    assert jit.identity_decorator(drop=True)(f) is f  # @torch.jit.ignore(drop=True)
    assert jit.compile(f, mode="max-autotune") is f and jit.compile(dynamic=True)(f) is f
    assert jit.script(f) is f
    assert not jit.is_scripting() and not jit.is_tracing() and not jit.is_compiling()
    assert jit.annotate(list, [1]) == [1]
    assert jit.Final[int] is not None


def test_placeholder_reads_as_absent_and_compares():
    p = unported("torch.compiler")
    fallback = object()
    assert (getattr(p, "disable", None) or fallback) is fallback
    assert not p and p == unported("torch.compiler") and p != unported("torch.jit")
    assert {p: 1}[unported("torch.compiler")] == 1
    with pytest.raises(UnportedError):
        p.disable(lambda: None)


def test_placeholder_class_in_isinstance_and_issubclass():
    """StyleGAN2-ADA's ``print_module_summary`` asserts ``not isinstance(module,
    torch.jit.ScriptModule)``: an unported class is a type check that nothing a port makes passes,
    except a class deriving from that placeholder."""
    script_module = unported("torch.jit.ScriptModule")
    assert not isinstance(jt.nn.Linear(2, 2), script_module)
    assert not isinstance(jt.nn.Linear(2, 2), (script_module, unported("torch.jit.ScriptFunction")))
    assert not issubclass(jt.nn.Module, script_module)

    class Scripted(script_module):
        pass

    assert issubclass(Scripted, script_module) and issubclass(Scripted, unported("torch.jit.ScriptModule"))
    assert not issubclass(Scripted, unported("torch.jit.ScriptFunction"))


def test_data_classes_are_subscriptable():
    from shims.data import Dataset, Sampler

    class Ints(Sampler[int]):
        def __iter__(self):
            return iter([0, 1])

    assert list(Ints()) == [0, 1]
    assert Dataset[int] is not None


def test_var_member_with_a_shim_is_reached_at_run_time():
    """A torch Tensor member the Var lacks, reached where the converter saw no tensor
    (``getattr(x, name)``), is the table row's shim; one with no row raises the named error."""
    from porter.mapping import default_table
    from shims.namespace import target_object

    x = jt.array([[1.0, 2.0], [3.0, 4.0]])
    rows = [e for e in default_table() if e.api.startswith("torch.Tensor.") and e.status in ("direct", "shim")
            and e.target and not e.target.startswith(".") and e.kind == "method"
            and not hasattr(type(x), e.short_name)]
    assert len(rows) > 10, "the Var lacks few torch methods with a shim: the fallback is barely exercised"
    for entry in rows:
        method = getattr(x, entry.short_name)
        assert method.__name__ == entry.short_name
    # one bound shim computed: the receiver is passed first, the arguments after it
    name = next(e.short_name for e in rows if e.target == "shims.var") if any(e.target == "shims.var" for e in rows) \
        else None
    if name is not None:
        assert np.allclose(getattr(x, name)(1).numpy(), np.var(x.numpy(), axis=1, ddof=1))
    with pytest.raises(UnportedAttributeError):
        getattr(x, "geqrf")  # noqa: B009 (the attribute access under test; `x.geqrf` alone is a B018 useless expression)
    assert getattr(x, "grad_fn", "absent") == "absent"  # hasattr/getattr with a default still work
    assert target_object("shims.var") is shims.var


def test_int64_outside_int32_is_kept_exact():
    t = shims.tensor([2**40, 3], dtype=jt.int64)
    assert str(t.dtype) == "int64" and t.numpy().tolist() == [2**40, 3]
    big = shims.tensor([2**40, -3])  # no dtype: int32 cannot hold it, so it stays int64
    assert big.numpy().tolist() == [2**40, -3]
    small = shims.tensor([1, 2])  # in range: Jittor's int32 default, as before
    assert str(small.dtype) == "int32"
    assert shims.LongTensor([2**40]).numpy().tolist() == [2**40]


def test_float64_request_is_not_rounded_through_float32():
    t = shims.tensor([0.1, 1 / 3], dtype=jt.float64)
    assert t.numpy().tolist() == [0.1, 1 / 3]


def test_parameter_flag_at_run_time_and_invert():
    assert shims.nn.parameter(jt.ones(2), True).requires_grad
    assert not shims.nn.parameter(jt.ones(2), False).requires_grad
    mask = jt.array([True, False])
    assert (~mask).numpy().tolist() == [False, True]  # torch's logical not of a bool tensor
    assert (~jt.array([0, 5])).numpy().tolist() == [-1, -6]  # bitwise not of an integer one


def test_forward_by_name_on_a_jittor_module():
    seq = jt.nn.Sequential(jt.nn.ReLU())
    assert seq.forward(jt.array([-1.0, 1.0])).numpy().tolist() == [0.0, 1.0]


def test_module_defining_neither_execute_nor_forward_still_says_so():
    class Empty(shims.nn.Module):
        pass

    with pytest.raises(NotImplementedError):
        Empty()(jt.ones(1))
