"""``x.device`` / ``x.is_cuda`` in converted code: torch's device object over Jittor's global
placement (StyleGAN2-ADA's bias_act and upfirdn2d branch on ``x.device.type == 'cuda'``)."""
import shims
import jittor as jt

from porter import convert_source
from shims.runtime import Device


def test_device_compares_and_prints_as_torch():
    assert Device("cuda:1") == Device("cuda", 1) and str(Device("cuda:1")) == "cuda:1"
    assert repr(Device("cpu")) == "device(type='cpu')"
    assert repr(Device("cuda", 0)) == "device(type='cuda', index=0)"
    assert Device("cpu") == "cpu" and Device("cpu") != "cuda" and Device("cuda", 0) != Device("cuda")
    assert len({Device("cpu"), Device("cpu")}) == 1


def test_var_reports_the_global_placement():
    x = jt.ones(2)
    assert not jt.flags.use_cuda  # this machine has no GPU: jt.flags.use_cuda stays 0
    assert x.device.type == "cpu" and x.device == "cpu" and x.device.index is None
    assert x.is_cuda is False and x.is_cpu is True


def _run_converted(src: str, name: str) -> dict:
    """The globals of ``src`` converted and run (the converted code is under key ``__code__``)."""
    result = convert_source(src, name)
    assert not result.report.unsupported, result.report.unsupported
    scope = {"__code__": result.code}
    exec(compile(result.code, name, "exec"), scope)
    return scope


def test_converted_device_branch_runs():
    src = (
        "import torch\n"
        "def act(x):\n"
        "    if x.device.type == 'cuda' and x.is_cuda:\n"
        "        return 'cuda path'\n"
        "    return str(x.device)\n"
        "out = act(torch.ones(3))\n"
    )
    scope = _run_converted(src, "bias_act.py")
    assert scope["out"] == "cpu", scope["__code__"]
    assert shims.runtime.current_device() == "cpu"


def test_torch_device_value_keeps_its_attributes():
    """``torch.device(...)`` stays a device object (pytorch/examples imagenet reads
    ``device.type``), from a string, a string and an index, another device or a CUDA ordinal."""
    src = (
        "import torch\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "kind = device.type\n"
        "again = torch.device(device)\n"
        "second = torch.device('cuda', 1)\n"
        "ordinal = torch.device(0)\n"
    )
    scope = _run_converted(src, "imagenet_main.py")
    assert scope["kind"] == "cpu" and scope["device"] == "cpu" and str(scope["again"]) == "cpu", scope["__code__"]
    assert (scope["second"].type, scope["second"].index, str(scope["second"])) == ("cuda", 1, "cuda:1")
    assert scope["ordinal"] == "cuda:0" and scope["ordinal"].index == 0


def test_to_of_unknown_kind_is_decided_when_it_runs():
    """``x.to(arg)`` where ``arg`` may be a device or a dtype (torchdiffeq, NeRF helpers): a
    device changes nothing, a dtype or another tensor's dtype casts, a module gets its own ``.to``."""
    src = (
        "import torch\n"
        "def move(x, where):\n"
        "    return x.to(where)\n"
        "x = torch.ones(3)\n"
        "a = move(x, torch.device('cpu'))\n"
        "b = move(x, torch.float64)\n"
        "c = move(x, torch.zeros(2, dtype=torch.int32))\n"
        "d = move(x, 'cuda:0')\n"
        "net = move(torch.nn.Linear(2, 2), torch.float64)\n"
    )
    scope = _run_converted(src, "misc.py")
    assert "shims.tensor_to(x, where)" in scope["__code__"], scope["__code__"]
    assert scope["a"] is scope["x"] and scope["d"] is scope["x"]
    assert str(scope["b"].dtype) == "float64" and scope["b"].numpy().tolist() == [1.0, 1.0, 1.0]
    assert str(scope["c"].dtype) == "int32"
    assert str(scope["net"].weight.dtype) == "float64"
