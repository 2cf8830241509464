"""The spec file of ``jtport parity SPEC``: which torch model, which converted counterpart,
which inputs.  TOML, read by both sides (torch side in ``.venv-torch``, Jittor side in
``.venv``), so it holds names, never code::

    factory = "model:build"             # module:callable returning the model (same name in both trees)
    torch_root = "src"                  # folder on sys.path for the torch code
    jittor_root = "src_jittor"          # folder on sys.path for its conversion (jtport convert src -o src_jittor)
    # jittor_factory = "model:build"    # if the converted factory is named differently
    # forward = "model:run"             # optional (model, inputs) -> outputs, looked up in each tree
    seed = 0
    rtol = 1e-5
    atol = 1e-6

    [inputs]                            # positional arguments, in order
    x = [2, 3, 32, 32]                  # a shape: standard normal float32
    labels = { shape = [2], dist = "randint", low = 0, high = 10 }

    [train]                             # optional: compare parameters after N optimizer steps
    steps = 2
    optimizer = { name = "sgd", lr = 0.01, momentum = 0.9 }

Relative paths are relative to the spec file's folder.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class SpecError(ValueError):
    """The spec file is malformed; the message names the file and the key."""


@dataclass
class Spec:
    """A parsed spec file."""

    path: Path
    factory: str
    torch_root: Path
    jittor_root: Path
    jittor_factory: str
    forward: Optional[str] = None
    seed: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6
    inputs: Dict[str, Any] = field(default_factory=dict)
    steps: int = 0
    optimizer: Optional[Dict[str, Any]] = None

    @property
    def name(self) -> str:
        """The suite name of this spec's results (the file's stem)."""
        return self.path.stem


_KEYS = {"factory", "torch_root", "jittor_root", "jittor_factory", "forward", "seed", "rtol", "atol",
         "inputs", "train"}


def _require(cond: bool, path: Path, msg: str) -> None:
    if not cond:
        raise SpecError(f"{path}: {msg}")


def _target(value: Any, path: Path, key: str) -> str:
    _require(isinstance(value, str) and value.count(":") == 1 and all(value.split(":")),
             path, f"{key} must be 'module:callable', got {value!r}")
    return value


def load_spec(path) -> Spec:
    """Read and validate a spec file."""
    path = Path(path).resolve()
    if not path.exists():
        raise SpecError(f"{path}: no such spec file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf8"))
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: cannot read the spec file ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML ({e})") from None
    unknown = sorted(set(data) - _KEYS)
    _require(not unknown, path, f"unknown key(s) {unknown}; known: {sorted(_KEYS)}")
    for key in ("factory", "torch_root", "jittor_root"):
        _require(key in data, path, f"missing required key {key!r}")
    base = path.parent
    factory = _target(data["factory"], path, "factory")
    inputs = data.get("inputs", {})
    _require(isinstance(inputs, dict) and inputs, path, "[inputs] must name at least one input")
    for name, shape in inputs.items():
        ok = (isinstance(shape, list) and all(isinstance(s, int) and s > 0 for s in shape)) or \
             (isinstance(shape, dict) and isinstance(shape.get("shape"), list))
        _require(ok, path, f"inputs.{name} must be a list of positive ints or a table with 'shape'")
    train = data.get("train", {})
    _require(isinstance(train, dict), path, "[train] must be a table")
    steps = train.get("steps", 0)
    _require(isinstance(steps, int) and steps >= 0, path, "train.steps must be a non-negative int")
    optimizer = train.get("optimizer")
    _require(not steps or (isinstance(optimizer, dict) and "name" in optimizer), path,
             "train.optimizer = { name = ..., lr = ... } is required when train.steps > 0")
    for key in ("rtol", "atol"):
        _require(isinstance(data.get(key, 0.0), (int, float)) and data.get(key, 0.0) >= 0, path,
                 f"{key} must be a non-negative number")
    return Spec(path=path, factory=factory, torch_root=(base / data["torch_root"]).resolve(),
                jittor_root=(base / data["jittor_root"]).resolve(),
                jittor_factory=_target(data.get("jittor_factory", factory), path, "jittor_factory"),
                forward=_target(data["forward"], path, "forward") if "forward" in data else None,
                seed=int(data.get("seed", 0)), rtol=float(data.get("rtol", 1e-5)),
                atol=float(data.get("atol", 1e-6)), inputs=inputs, steps=steps, optimizer=optimizer)


def resolve(target: str, root: Path) -> Callable:
    """Import ``module:callable`` with ``root`` first on ``sys.path``."""
    if not root.is_dir():
        raise SpecError(f"{root} is not a folder")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    module_name, attr = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise SpecError(f"cannot import {module_name!r} from {root}: {e}") from e
    where = Path(getattr(module, "__file__", "") or "").resolve()
    if root not in where.parents:
        raise SpecError(f"{module_name!r} was imported from {where}, not from {root} "
                        f"(a module of that name was already imported)")
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise SpecError(f"{module_name}.{attr} is missing or not callable")
    return fn
