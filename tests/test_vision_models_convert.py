"""``torchvision.models`` converts to ``shims.vision.models`` (no Jittor, no torch needed);
the models themselves are proven by ``parity_tests/test_vision_models.py``."""
from porter import convert_source
from porter.mapping import load_table

SRC = '''import torch.nn as nn
from torchvision import models
import torchvision

vgg = models.vgg16(pretrained=True).features
enc_1 = nn.Sequential(*list(vgg.children())[:4])
net = torchvision.models.resnet18(weights=torchvision.models.ResNet18_Weights.IMAGENET1K_V1)
w = models.VGG16_Weights.DEFAULT
'''


def test_models_convert_to_shims_vision_models():
    """The MCCNet idiom and the weights enums convert, nothing is left unported."""
    r = convert_source(SRC, "m.py")
    assert not r.report.unsupported, r.report.unsupported
    assert "vgg = shims.vision.models.vgg16(pretrained=True).features\n" in r.code
    assert "enc_1 = shims.nn.Sequential(*list(vgg.children())[:4])\n" in r.code
    assert "shims.vision.models.resnet18(weights=shims.vision.models.ResNet18_Weights.IMAGENET1K_V1)" in r.code
    assert "w = shims.vision.models.VGG16_Weights.DEFAULT\n" in r.code
    assert "torchvision" not in r.code


def test_model_rows_live_in_their_own_file():
    """``torchvision.models.*`` rows are in torchvision_models.toml, and each shim row names a
    builder, class or enum of shims.vision.models (read as text: no Jittor here)."""
    import ast
    from pathlib import Path

    pkg = Path(__file__).resolve().parents[1] / "shims" / "vision" / "models"
    alls = set()
    for path in pkg.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                alls.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
    rows = [e for e in load_table() if e.api.startswith("torchvision.models.")]
    assert rows and all(e.source == "torchvision_models.toml" for e in rows)
    missing = [e.api for e in rows if e.status == "shim" and e.target.rsplit(".", 1)[-1] not in alls]
    assert not missing, missing
