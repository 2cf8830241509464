"""``shims.vision.models`` against torchvision: layout, initialisation, numerics, pretrained loading.

The torch side (``torch_side/vision_models.py``) builds torchvision's models with random
initialisation.  Here:

* every builder's ``state_dict`` keys and shapes, in order, and the classes of ``children()``
  and ``modules()``, equal torchvision's (Jittor names ``Conv2d`` ``Conv`` and ``ReLU``
  ``relu``; torch's 0-d ``num_batches_tracked`` is shape (1,): Jittor has no 0-d Vars);
* a fresh shims model's weights have torchvision's initialisation statistics;
* resnet18/resnet50/squeezenet1_1/mobilenet_v2 and vgg16's ``features`` load the torch-saved
  ``.pt`` through the safe reader with exactly torch's keys, and the eval-mode output and the
  gradients of ``(out * cot).sum()`` w.r.t. the input and every parameter match torch's;
* the MCCNet encoder idiom ``nn.Sequential(*list(vgg.features.children())[a:b])`` takes the
  same layers and gives torch's outputs;
* ``pretrained=True`` / ``weights=`` read ``$TORCH_HOME/hub/checkpoints/<torchvision's file>``.
"""
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import shims
import jittor as jt
from porter.prove.torchside import TorchSide
from shims import nn
from shims.vision import models

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "vision_models.py", "vision_models")
#: Jittor's class names for torch's (jt.nn.Conv2d is jt.nn.Conv; ReLU/ReLU6 are classes relu/relu6)
JT_NAMES = {"Conv": "Conv2d", "relu": "ReLU", "relu6": "ReLU6"}
LAYOUT_MODELS = ["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "resnet18",
                 "resnet34", "resnet50", "resnet101", "resnet152", "alexnet", "squeezenet1_0", "squeezenet1_1",
                 "mobilenet_v2", "densenet121", "densenet161", "densenet169", "densenet201"]
NUMERIC = ["resnet18", "resnet50", "squeezenet1_1", "mobilenet_v2", "densenet121", "vgg16_features"]
SLICES = [(0, 4), (4, 9), (9, 16), (16, 23), (23, 31)]


@pytest.fixture(scope="module")
def ref():
    return TORCH_SIDE.run()


def _classes(mods):
    return [JT_NAMES.get(type(m).__name__, type(m).__name__) for m in mods]


@pytest.mark.parametrize("name", LAYOUT_MODELS)
def test_layout_is_torchvisions(ref, name):
    """Keys, shapes and order of ``state_dict()``; ``children()`` and ``modules()`` classes."""
    want = json.loads((ref / "layout.json").read_text())[name]
    m = getattr(models, name)()
    got = [[k, [] if k.endswith("num_batches_tracked") and v.shape == [1] else list(v.shape)]
           for k, v in m.state_dict().items()]
    assert [k for k, _ in got] == [k for k, _ in want["keys"]], f"{name}: state_dict keys differ"
    differ = [(g, w) for g, w in zip(got, want["keys"]) if g != w]
    assert not differ, f"{name}: shapes differ: {differ[:3]}"
    assert _classes(m.children()) == want["children"]
    assert _classes(m.modules()) == want["modules"]


def _shims_model(name):
    return models.vgg16().features if name == "vgg16_features" else getattr(models, name)()


def _load(ref, name):
    """The shims model with the torch-saved state dict loaded through the safe reader."""
    sd = shims.load(ref / f"{name}.pt", to="numpy")
    m = _shims_model(name)
    assert list(sd) == list(m.state_dict()), f"{name}: the .pt keys differ from the shims model's"
    m.load_state_dict(sd)
    return m.eval()


#: float32 sums over up to 4,608 terms per layer, in another order than torch's, through up to
#: 121 layers: measured (unfused) at most 3.0e-6 of the tensor's largest magnitude for outputs
#: (vgg16.features), 4.2e-6 for parameter gradients (resnet50); 3e-5 leaves a 7x margin.
TOL = 3e-5


def _close(got, want, what, rtol=TOL):
    """Compare with torch, the error bound relative to the tensor's largest magnitude."""
    got = got.numpy() if isinstance(got, jt.Var) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != torch {want.shape}"
    atol = rtol * float(np.abs(want).max(initial=0.0))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("name", NUMERIC)
def test_forward_and_gradients(ref, name):
    """Eval-mode output and the gradients w.r.t. the input and every parameter."""
    d = np.load(ref / f"{name}.npz")
    m = _load(ref, name)
    x = jt.array(d["x"])
    out = m(x)
    _close(out, d["out"], f"{name}: forward")
    named = m.named_parameters()
    assert sorted(n for n, _ in named) == sorted(k[2:] for k in d.files if k.startswith("g:"))
    grads = jt.grad((out * jt.array(d["cot"])).sum(), [x] + [p for _, p in named])
    _close(grads[0], d["gx"], f"{name}: grad wrt input")
    for (pname, _), g in zip(named, grads[1:]):
        _close(g, d["g:" + pname], f"{name}: grad wrt {pname}")


def test_mccnet_slicing_of_vgg_features(ref):
    """``nn.Sequential(*list(vgg.features.children())[a:b])``, chained: torchvision's layers
    (the MCCNet write-up's trap: with Jittor's own VGG, ``[:4]`` took the whole net)."""
    d = np.load(ref / "vgg16_features.npz")
    features = _load(ref, "vgg16_features")
    layers = list(features.children())
    assert len(layers) == 31
    assert _classes(layers[:4]) == ["Conv2d", "ReLU", "Conv2d", "ReLU"]
    h = jt.array(d["x"])
    for a, b in SLICES:
        h = nn.Sequential(*layers[a:b])(h)
        _close(h, d[f"slice:{a}:{b}"], f"features[{a}:{b}]")


def _init_stats_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Two draws of one distribution: means within 6 standard errors, standard deviations
    within 6 standard errors of a sample std (std / sqrt(2n)); all-zero / all-one stays exact."""
    if np.all(want == want.flat[0]):
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    n = want.size
    sd = float(want.std())
    assert abs(float(got.mean()) - float(want.mean())) < 6 * sd / np.sqrt(n) * np.sqrt(2), what
    assert abs(float(got.std()) - sd) < 6 * sd / np.sqrt(2 * n) * np.sqrt(2), what


@pytest.mark.parametrize("name", ["resnet18", "squeezenet1_1", "mobilenet_v2", "densenet121", "vgg16_features"])
def test_initialisation_is_torchvisions(ref, name):
    """Weights and biases of a fresh shims model against the torch-initialised ones (batch
    norms are skipped: the torch side randomised them); tensors under 256 values are too
    small to test statistically, except constant ones."""
    sd = shims.load(ref / f"{name}.pt", to="numpy")
    jt.set_global_seed(0)
    own = _shims_model(name).state_dict()
    bn = {k.rsplit(".", 1)[0] for k in sd if k.endswith("running_mean")}
    checked = 0
    for k, want in sd.items():
        if k.rsplit(".", 1)[0] in bn or (want.size < 256 and not np.all(want == want.flat[0])):
            continue
        _init_stats_close(own[k].numpy(), want, f"{name}: {k}")
        checked += 1
    assert checked >= 10


def test_pretrained_from_the_torch_hub_cache(ref, tmp_path, monkeypatch):
    """``pretrained=True``, ``weights=`` (member, name, ``get_weight``) load the file torchvision
    caches; absent, the error names the file and where to put it."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"hub/checkpoints/resnet18-f37072fd\.pth.*download"):
        models.resnet18(pretrained=True)
    (tmp_path / "hub" / "checkpoints").mkdir(parents=True)
    shutil.copy(ref / "resnet18.pt", tmp_path / "hub" / "checkpoints" / "resnet18-f37072fd.pth")
    want = shims.load(ref / "resnet18.pt", to="numpy")
    for m in (models.resnet18(pretrained=True), models.resnet18(weights="DEFAULT"),
              models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1),
              models.get_model("resnet18", weights=models.get_weight("ResNet18_Weights.DEFAULT"))):
        got = m.state_dict()
        for k in ("conv1.weight", "layer4.1.bn2.running_var", "fc.bias"):
            np.testing.assert_array_equal(got[k].numpy(), want[k])
    with pytest.raises(ValueError, match="num_classes"):
        models.resnet18(weights="DEFAULT", num_classes=10)
    with pytest.raises(ValueError, match="weights and pretrained"):
        models.resnet18(weights="DEFAULT", pretrained=True)
    assert models.resnet18(pretrained=False).fc.weight.shape == [1000, 512]


def test_densenet_pretrained_file_with_torchvisions_old_keys(ref, tmp_path, monkeypatch):
    """torchvision's DenseNet files spell ``denselayer1.norm.1.weight`` and, saved before torch
    0.4.1, have no ``num_batches_tracked``: loading renames the keys (torchvision's
    ``_load_state_dict``), counts 0 batches (torch's BatchNorm load hook), and the values land
    where torch's do."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    want = shims.load(ref / "densenet121.pt", to="numpy")
    old = {re.sub(r"(denselayer\d+\.(?:norm|relu|conv))([12])\.", r"\1.\2.", k): v for k, v in want.items()
           if not k.endswith("num_batches_tracked")}
    assert "features.denseblock1.denselayer1.norm.1.weight" in old
    (tmp_path / "hub" / "checkpoints").mkdir(parents=True)
    shims.save(old, str(tmp_path / "hub" / "checkpoints" / "densenet121-a639ec97.pth"))
    got = models.densenet121(weights=models.DenseNet121_Weights.DEFAULT).state_dict()
    assert list(got) == list(want)
    for k in ("features.denseblock1.denselayer1.norm1.weight", "features.denseblock4.denselayer16.conv2.weight"):
        np.testing.assert_array_equal(got[k].numpy(), want[k])
    assert int(got["features.denseblock2.denselayer3.norm2.num_batches_tracked"].item()) == 0


CONVERTED = '''import torch
import torch.nn as nn
from torchvision import models

net = models.resnet18(pretrained=True)
net.eval()
logits = net(x)

vgg = models.vgg16().features
vgg.load_state_dict(torch.load(vgg_path))
enc_1 = nn.Sequential(*list(vgg.children())[:4])
enc_2 = nn.Sequential(*list(vgg.children())[4:9])
feat = enc_2(enc_1(x_small))
'''


def test_converted_torch_code_runs_torchvisions_models(ref, tmp_path, monkeypatch):
    """Torch code using ``torchvision.models`` (pretrained resnet18 from the hub cache; VGG-16
    features sliced MCCNet-style), converted by jtport and run on Jittor: torch's outputs."""
    from porter import convert_source

    result = convert_source(CONVERTED, "user.py")
    assert not result.report.unsupported, result.report.unsupported
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    (tmp_path / "hub" / "checkpoints").mkdir(parents=True)
    shutil.copy(ref / "resnet18.pt", tmp_path / "hub" / "checkpoints" / "resnet18-f37072fd.pth")
    r18, v16 = np.load(ref / "resnet18.npz"), np.load(ref / "vgg16_features.npz")
    ns = {"x": jt.array(r18["x"]), "x_small": jt.array(v16["x"]), "vgg_path": str(ref / "vgg16_features.pt")}
    exec(compile(result.code, "user.py", "exec"), ns)
    _close(ns["logits"], r18["out"], "converted resnet18(pretrained=True)")
    _close(ns["feat"], v16["slice:4:9"], "converted enc_2(enc_1(x))")
