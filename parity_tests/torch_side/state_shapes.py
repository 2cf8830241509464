"""State-dict names and shapes of the torch references' networks at the parity configurations,
as JSON (``{"hisd/Gen": {"key": [shape...]}, ...}``).

``--out DIR`` writes ``DIR/shapes.json`` for ``models_ref``; ``--upstream DIR`` reads the
upstream clones instead (``DIR/{HiSD,stylegan2-ada-pytorch,MCCNet}``, what
``parity_tests/upstream_shapes.json`` was recorded from; CI has no clones).  Runs in .venv-torch.
"""
import argparse
import importlib
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from models_ref.hisd import configs as hisd_configs  # noqa: E402  (after the sys.path line above)
from models_ref.stylegan2 import parity_config as sg  # noqa: E402

# Modules upstream imports at the top of these files but never uses while building networks,
# absent from .venv-torch.
_UNUSED_IMPORTS = ("scipy", "scipy.stats", "requests", "yaml")


def _stub_unused_imports() -> None:
    for name in _UNUSED_IMPORTS:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["scipy"].stats = sys.modules["scipy.stats"]


def _load(upstream, repo: str, folder: str, module: str, ref_module: str):
    if upstream is None:
        return importlib.import_module(ref_module)
    sys.path.insert(0, str(Path(upstream) / repo / folder))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.pop(0)


def _shapes(model) -> dict:
    return {k: list(v.shape) for k, v in model.state_dict().items()}


def collect(upstream=None) -> dict:
    """Name -> {state-dict key: shape} for every network the parity suites build."""
    _stub_unused_imports()
    out = {}
    hisd = _load(upstream, "HiSD", "core", "networks", "models_ref.hisd.networks")
    for cfg_name in ("tiny_config", "micro_config"):
        cfg = getattr(hisd_configs, cfg_name)()
        for cls in ("Gen", "Dis"):
            out[f"hisd/{cls}/{cfg_name}"] = _shapes(getattr(hisd, cls)(cfg))
    sys.modules.pop("networks", None)
    nets = _load(upstream, "stylegan2-ada-pytorch", "", "training.networks", "models_ref.stylegan2.networks")
    for cls, kw in (("Generator", sg.GENERATOR), ("Discriminator", sg.DISCRIMINATOR),
                    ("Generator_fp16", sg.GENERATOR_FP16)):
        out[f"stylegan2/{cls}"] = _shapes(getattr(nets, cls.split("_")[0])(**kw))
    mcc = _load(upstream, "MCCNet", "", "net", "models_ref.mccnet.net")
    out["mccnet/Net"] = _shapes(mcc.Net(mcc.vgg, mcc.decoder))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--upstream", type=Path)
    args = ap.parse_args()
    shapes = collect(args.upstream)
    text = json.dumps(shapes, indent=0, sort_keys=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "shapes.json").write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
