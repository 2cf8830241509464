"""The spec file of ``jtport parity SPEC``: which torch model, which converted counterpart,
which inputs.  TOML, read by both sides (torch side in ``.venv-torch``, Jittor side in
``.venv``), so it holds names, never code::

    factory = "model:build"             # module:callable returning the model (same name in both trees)
    torch_root = "src"                  # folder on sys.path for the torch code
    jittor_root = "src_jittor"          # folder on sys.path for its conversion (jtport convert src -o src_jittor)
    # jittor_factory = "model:build"    # if the converted factory is named differently
    # forward = "model:run"             # optional (model, inputs) -> outputs, looked up in each tree
    # method = "translate"              # optional: call model.translate(*inputs, **forward_kwargs)
    # factory_args = ["@net:vgg"]       # optional positional arguments of the factory
    # forward_kwargs = { i = 0 }        # optional keyword arguments of every forward call
    # shared_random = true              # random draws inside forward come from one seeded
    #                                   # stream on both sides (randn, rand, init.normal_, ...)
    # loss = "losses:r1"                # optional (model, inputs, outputs) -> scalar, in plain
    #                                   # torch in loss_root (default: the spec's folder); the
    #                                   # Jittor side runs its conversion (second-order terms:
    #                                   # autograd.grad(create_graph=True) inside it); a factory
    #                                   # may live there too ("losses:Nets", upstream's networks
    #                                   # held together as its training code holds them)
    # loss = ["losses:total", "losses:terms[style]"]  # or a list of terms: one torch reference
    #                                   # and one gradient row per term ("m:fn[key]": entry key
    #                                   # of a loss returning a dict); steps with the first only
    # checkpoint = "weights/gen_00600000.pt"  # optional: a file the torch code wrote; both sides
    #                                   # load it (torch.load / shims.load) instead of seeded weights
    # checkpoint_key = "gen_test"       # optional dotted path to the state dict inside it
    # checkpoint = { decoder = "decoder.pth", "@net:vgg" = "vgg.pth" }  # or one file per part:
    #                                   # a submodule of the model, or a factory argument
    seed = 0
    rtol = 1e-5
    atol = 1e-6

    [inputs]                            # positional arguments, in order
    x = [2, 3, 32, 32]                  # a shape: standard normal float32
    labels = { shape = [2], dist = "randint", low = 0, high = 10 }

    [loss_inputs]                       # optional: seeded inputs only the loss sees (noise)
    pl_noise = [2, 3, 16, 16]

    [train]                             # optional: compare parameters after N optimizer steps
    steps = 2
    optimizer = { name = "sgd", lr = 0.01, momentum = 0.9 }

    [factory_kwargs]                    # optional keyword arguments of the factory
    img_size = 32
    hyperparameters = { style_dim = 16, encoder = { channels = [8, 16] } }

Arguments are TOML values passed as they are, except strings ``"@module:attr"``: that attribute
of that module, imported from the same tree on each side (``"@net:vgg"`` is torch's ``net.vgg``
on the torch side and the converted one on the Jittor side); still names, never code.  So a
spec can build an unmodified upstream class (``examples/upstream/*.toml``).

Relative paths are relative to the spec file's folder (``jtport parity --torch-root/--jittor-root/
--checkpoint`` override them).  ``checkpoint_key`` without a ``checkpoint`` names where the
state dict sits in the files the upstream code writes, for a ``--checkpoint`` given later
(:mod:`.checkpoint`).  Projects that save their parts separately (MCCNet's ``decoder.pth``,
``mcc_module.pth`` and the VGG's ``vgg_normalised.pth``) give ``checkpoint`` as a table from
each part to its file: a submodule's name in the built model (``decoder``) or a factory
argument (``"@net:vgg"``); ``--checkpoint PART=FILE``, repeated, does the same.
"""
from __future__ import annotations

import dataclasses
import importlib
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from porter.prove.common import SeededStream
from .loss_terms import parse_term, term_callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class SpecError(ValueError):
    """The spec file is malformed; the message names the file and the key."""


@dataclass(frozen=True)
class CheckpointFile:
    """One file of a spec's checkpoint and what it loads into: ``part`` is ``""`` for the whole
    model, a submodule's name in the built model (``"decoder"``), or a factory argument
    (``"@net:vgg"``); ``key`` is the dotted path to the state dict inside the file."""

    part: str
    file: Path
    key: Optional[str] = None

    def describe(self) -> str:
        """How messages name it: the file, its part and key."""
        part = f" -> {self.part}" if self.part else ""
        key = f" (checkpoint_key {self.key!r})" if self.key else ""
        return f"checkpoint {self.file}{key}{part}"


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
    method: Optional[str] = None
    factory_args: List[Any] = field(default_factory=list)
    factory_kwargs: Dict[str, Any] = field(default_factory=dict)
    forward_kwargs: Dict[str, Any] = field(default_factory=dict)
    shared_random: bool = False
    loss: Optional[str] = None
    loss_root: Optional[Path] = None
    loss_inputs: Dict[str, Any] = field(default_factory=dict)
    #: every term of ``loss = [...]`` (:mod:`.loss_terms`); ``loss`` is the one being checked
    loss_terms: List[str] = field(default_factory=list)
    checkpoint: Optional[Path] = None
    checkpoint_key: Optional[str] = None
    checkpoint_parts: Dict[str, Path] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The suite name of this spec's results (the file's stem)."""
        return self.path.stem

    @property
    def checkpoints(self) -> List[CheckpointFile]:
        """The files both sides load, in order: the whole model's, then each part's."""
        whole = [CheckpointFile("", self.checkpoint, self.checkpoint_key)] if self.checkpoint else []
        return whole + [CheckpointFile(part, f) for part, f in self.checkpoint_parts.items()]


_KEYS = {"factory", "torch_root", "jittor_root", "jittor_factory", "forward", "seed", "rtol", "atol",
         "inputs", "train", "method", "factory_args", "factory_kwargs", "forward_kwargs", "shared_random",
         "loss", "loss_root", "loss_inputs", "checkpoint", "checkpoint_key"}


def _require(cond: bool, path: Path, msg: str) -> None:
    if not cond:
        raise SpecError(f"{path}: {msg}")


def _is_target(text: str) -> bool:
    """Whether ``text`` has the shape ``module:name`` (both parts non-empty)."""
    return text.count(":") == 1 and all(text.split(":"))


def _target(value: Any, path: Path, key: str) -> str:
    _require(isinstance(value, str) and _is_target(value), path, f"{key} must be 'module:callable', got {value!r}")
    return value


def _loss_terms(value: Any, path: Path) -> List[str]:
    """``loss`` as a list of terms (:mod:`.loss_terms`): one string or a non-empty list."""
    terms = value if isinstance(value, list) else [value]
    _require(bool(terms) and len(set(map(str, terms))) == len(terms), path,
             f"loss must be 'module:callable' or a list of distinct ones, got {value!r}")
    for t in terms:
        _require(parse_term(t) is not None, path,
                 f"loss must be 'module:callable' (or 'module:callable[key]' for one entry of a dict), got {t!r}")
    return list(terms)


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
    loss_inputs = data.get("loss_inputs", {})
    _require(isinstance(loss_inputs, dict), path, "[loss_inputs] must be a table")
    _require("loss" in data or not loss_inputs, path, "[loss_inputs] needs a loss = 'module:callable'")
    clash = sorted(set(inputs) & set(loss_inputs))
    _require(not clash, path, f"{clash} named in both [inputs] and [loss_inputs]")
    for table, entries in (("inputs", inputs), ("loss_inputs", loss_inputs)):
        for name, shape in entries.items():
            ok = (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)) or \
                 (isinstance(shape, dict) and isinstance(shape.get("shape"), list))
            _require(ok, path, f"{table}.{name} must be a list of non-negative ints or a table with 'shape'")
    _require(isinstance(data.get("loss_root", "."), str), path, "loss_root must be a folder name")
    train = data.get("train", {})
    _require(isinstance(train, dict), path, "[train] must be a table")
    steps = train.get("steps", 0)
    _require(isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0, path,
             "train.steps must be a non-negative int")
    optimizer = train.get("optimizer")
    _require(not steps or (isinstance(optimizer, dict) and "name" in optimizer), path,
             "train.optimizer = { name = ..., lr = ... } is required when train.steps > 0")
    _require(isinstance(data.get("factory_args", []), list), path, "factory_args must be a list")
    for key in ("factory_kwargs", "forward_kwargs"):
        _require(isinstance(data.get(key, {}), dict), path, f"[{key}] must be a table")
    method = data.get("method")
    _require(method is None or (isinstance(method, str) and method.isidentifier()), path,
             f"method must be a method name, got {method!r}")
    _require(not (method and "forward" in data), path, "give either forward or method, not both")
    _require(isinstance(data.get("shared_random", False), bool), path, "shared_random must be true or false")
    value = data.get("checkpoint_key", "x")
    _require(isinstance(value, str) and value.strip() != "", path,
             f"checkpoint_key must be a non-empty string, got {value!r}")
    whole, parts = _checkpoint(data.get("checkpoint"), path)
    for key in ("rtol", "atol"):
        value = data.get(key, 0.0)
        _require(isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                 and value >= 0, path, f"{key} must be a finite non-negative number, got {value!r}")
    return Spec(path=path, factory=factory, torch_root=(base / data["torch_root"]).resolve(),
                jittor_root=(base / data["jittor_root"]).resolve(),
                jittor_factory=_target(data.get("jittor_factory", factory), path, "jittor_factory"),
                forward=_target(data["forward"], path, "forward") if "forward" in data else None,
                seed=int(data.get("seed", 0)), rtol=float(data.get("rtol", 1e-5)),
                atol=float(data.get("atol", 1e-6)), inputs=inputs, steps=steps, optimizer=optimizer,
                method=method, factory_args=list(data.get("factory_args", [])),
                factory_kwargs=dict(data.get("factory_kwargs", {})),
                forward_kwargs=dict(data.get("forward_kwargs", {})),
                shared_random=bool(data.get("shared_random", False)),
                loss=_loss_terms(data["loss"], path)[0] if "loss" in data else None,
                loss_terms=_loss_terms(data["loss"], path) if "loss" in data else [],
                loss_root=(base / data.get("loss_root", ".")).resolve(), loss_inputs=dict(loss_inputs),
                checkpoint=(base / whole).resolve() if whole else None,
                checkpoint_key=data.get("checkpoint_key"),
                checkpoint_parts={part: (base / f).resolve() for part, f in parts.items()})


def _checkpoint(value: Any, path: Path) -> Tuple[Optional[str], Dict[str, str]]:
    """The spec's ``checkpoint``: a file for the whole model, or a table from parts to files."""
    if value is None:
        return None, {}
    if isinstance(value, dict):
        _require(bool(value), path, "checkpoint = { ... } must name at least one part")
        for part, f in value.items():
            _require(_is_part(part), path, f"checkpoint part {part!r} must be a submodule's name "
                                           "(decoder, enc.0) or a factory argument ('@module:attr')")
            _require(isinstance(f, str) and f.strip() != "", path,
                     f"checkpoint.{part} must be a non-empty file name, got {f!r}")
        return None, dict(value)
    _require(isinstance(value, str) and value.strip() != "", path,
             f"checkpoint must be a non-empty string or a table of parts, got {value!r}")
    return value, {}


def _is_part(part: str) -> bool:
    """Whether ``part`` names a submodule (dotted names) or a factory argument (``@module:attr``)."""
    if part.startswith("@"):
        return _is_target(part[1:])
    return part != "" and all(p.isidentifier() or p.isdigit() for p in part.split("."))


def checkpoint_argument(text: str) -> Tuple[str, Path]:
    """A ``--checkpoint`` value: ``PART=FILE`` (a part of the model) or ``FILE`` (the whole
    model, part ``""``)."""
    part, sep, f = text.partition("=")
    if sep and _is_part(part):
        return part, Path(f)
    return "", Path(text)


def all_inputs(spec: Spec) -> Dict[str, Any]:
    """The input specs of both tables, forward's first: one seeded set (``make_inputs``), of
    which forward gets ``[inputs]`` and the loss all."""
    return {**spec.inputs, **spec.loss_inputs}


def loss_module_file(spec: Spec) -> Path:
    """The torch source of the spec's ``loss`` module (a SpecError naming the spec if absent)."""
    assert spec.loss is not None and spec.loss_root is not None
    module = spec.loss.split(":")[0]
    base = spec.loss_root.joinpath(*module.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    raise SpecError(f"{spec.path}: loss = {spec.loss!r}: no {base.with_suffix('.py')} under loss_root {spec.loss_root}")


def convert_loss(spec: Spec, out: Path) -> Path:
    """Convert the spec's loss module with jtport's converter into ``out`` (a folder that then
    holds it under the same module path); returns ``out``.  A file the converter cannot parse is
    a SpecError naming it."""
    # lazy: the converter (libcst) is the Jittor side's; the torch side imports this module without it
    from porter.convert.pipeline import convert_source

    src = loss_module_file(spec)
    rel = src.relative_to(spec.loss_root)
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = convert_source(src.read_text(encoding="utf8"), str(src))
    except Exception as e:  # the converter's own errors name the file and line
        raise SpecError(f"{spec.path}: converting the loss module {src} failed: {e}") from e
    target.write_text(result.code, encoding="utf8")
    for parent in rel.parents:  # packages on the way keep being packages
        init = out / parent / "__init__.py"
        if parent != Path(".") and not init.exists():
            init.write_text("", encoding="utf8")
    return out


def _loss_root(spec: Spec, side: str, converted: Optional[Path]) -> Path:
    """The folder the loss module is imported from on one side, first on ``sys.path``: torch's
    ``loss_root``, or ``converted`` (the folder :func:`convert_loss` wrote).  The side's own tree
    stays on ``sys.path`` after it, so the loss module can import the project's modules
    (StyleGAN2's ``conv2d_gradfix``, StarGAN v2's ``core.solver``)."""
    assert spec.loss is not None
    root = spec.loss_root if side == "torch" else converted
    if root is None:
        raise SpecError(f"{spec.path}: the Jittor side needs the converted loss module (convert_loss)")
    tree = spec.torch_root if side == "torch" else spec.jittor_root
    if str(tree) not in sys.path:
        sys.path.insert(0, str(tree))
    if str(root) in sys.path:
        sys.path.remove(str(root))
    sys.path.insert(0, str(root))
    module = spec.loss.split(":")[0]
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        where = Path(getattr(sys.modules[name], "__file__", "") or "").resolve()
        if Path(root).resolve() not in where.parents:  # an earlier spec's loss of the same name
            del sys.modules[name]
    return Path(root)


def build_loss(spec: Spec, side: str, converted: Optional[Path] = None) -> Optional[Callable]:
    """The spec's ``loss`` callable ``(model, inputs, outputs) -> scalar`` of one side, or None:
    the torch side imports it from ``loss_root``, the Jittor side from ``converted`` (the folder
    :func:`convert_loss` wrote)."""
    if spec.loss is None:
        return None
    target, key = parse_term(spec.loss)
    return term_callable(resolve(target, _loss_root(spec, side, converted)), key)


def factory_in_loss(spec: Spec) -> bool:
    """Whether the spec's factory lives in its loss module (``factory = "losses:Nets"`` beside
    ``loss = "losses:g_loss"``): a module that assembles upstream's networks the way its training
    code holds them (StarGAN v2's ``nets``), converted with the loss."""
    return spec.loss is not None and spec.factory.split(":")[0] == spec.loss.split(":")[0]


#: The torch sources a reference is keyed on are hashed: a root holding more Python files than
#: this is a mistake (``torch_root = "/"`` would hash the whole filesystem).
MAX_TORCH_FILES = 20000


def torch_sources(spec: Spec) -> List[Path]:
    """The ``.py`` files under the spec's torch root, sorted (what its reference depends on);
    a SpecError for the filesystem root, the home folder, or more than MAX_TORCH_FILES files."""
    root = spec.torch_root
    if root == Path(root.anchor) or root == Path.home():
        raise SpecError(f"{spec.path}: torch_root is {root}: point it at the project's folder")
    files = []
    for f in root.rglob("*.py"):
        if "__pycache__" in f.parts:
            continue
        files.append(f)
        if len(files) > MAX_TORCH_FILES:
            raise SpecError(f"{spec.path}: torch_root {root} holds more than {MAX_TORCH_FILES} Python files: "
                            f"point it at the project's folder")
    return sorted(files)


def for_term(spec: Spec, term: str) -> Spec:
    """The spec checking one term of its loss list (a SpecError if it lists no such term);
    optimizer steps only with the first term (the training's total, by convention)."""
    if term not in spec.loss_terms:
        raise SpecError(f"{spec.path}: loss lists {spec.loss_terms}, not {term!r}")
    return dataclasses.replace(spec, loss=term, steps=spec.steps if term == spec.loss_terms[0] else 0)


def with_roots(spec: Spec, torch_root: Optional[Path] = None, jittor_root: Optional[Path] = None,
               checkpoint: Union[None, str, Path, Sequence[str]] = None) -> Spec:
    """The spec with its roots (and checkpoint) replaced (``--torch-root``/``--jittor-root``/
    ``--checkpoint``: a shipped spec run against the user's own clone and weights).
    ``checkpoint`` is a file for the whole model, or ``--checkpoint`` values (``FILE`` or
    ``PART=FILE``, :func:`checkpoint_argument`); given, they replace all of the spec's."""
    changes: Dict[str, Any] = {}
    if torch_root is not None:
        changes["torch_root"] = Path(torch_root).resolve()
    if jittor_root is not None:
        changes["jittor_root"] = Path(jittor_root).resolve()
    if checkpoint is not None:
        given = [("", Path(checkpoint))] if isinstance(checkpoint, Path) else \
            [checkpoint_argument(checkpoint)] if isinstance(checkpoint, str) else \
            [checkpoint_argument(c) for c in checkpoint]
        wholes = [f for part, f in given if not part]
        if len(wholes) > 1:
            raise SpecError(f"{spec.path}: --checkpoint names {len(wholes)} files for the whole model; "
                            "give one, or name each file's part (PART=FILE)")
        changes["checkpoint"] = wholes[0].resolve() if wholes else None
        changes["checkpoint_parts"] = {part: f.resolve() for part, f in given if part}
    return dataclasses.replace(spec, **changes)


def part_of(spec: Spec, model: Any, part: str, side: str) -> Any:
    """What a checkpoint ``part`` names on one side: the model (``""``), its submodule by name,
    or a factory argument (``@module:attr`` resolved in that side's tree)."""
    if part.startswith("@"):
        root = spec.torch_root if side == "torch" else spec.jittor_root
        return _argument(part, root)
    if not part:
        return model
    found = dict(model.named_modules()).get(part)
    if found is None:
        raise SpecError(f"{spec.path}: checkpoint part {part!r}: the {side} model "
                        f"{type(model).__name__} has no submodule of that name")
    return found


def _argument(value: Any, root: Path) -> Any:
    """A spec argument: ``"@module:attr"`` resolved in ``root``'s tree, containers recursively."""
    if isinstance(value, str) and value.startswith("@"):
        _require(_is_target(value[1:]), Path(str(root)),
                 f"an argument reference must be '@module:attr', got {value!r}")
        return resolve(value[1:], root, callable_only=False)
    if isinstance(value, list):
        return [_argument(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _argument(v, root) for k, v in value.items()}
    return value


def build(spec: Spec, side: str, default_forward: Callable,
          shared_random: Optional[Callable[[Any], Any]] = None,
          converted_loss: Optional[Path] = None) -> Tuple[Any, Callable]:
    """The model of one side (``"torch"`` or ``"jittor"``) and its forward ``(model, inputs) ->
    outputs``.  With ``spec.shared_random``, every forward call runs inside
    ``shared_random(SeededStream(seed))`` (the side's patcher of its random functions), so each
    call on either side draws the same numbers.  A factory in the loss module
    (:func:`factory_in_loss`) comes from where the loss does: on the Jittor side from
    ``converted_loss`` (:func:`convert_loss`'s folder)."""
    root, factory = (spec.torch_root, spec.factory) if side == "torch" else (spec.jittor_root, spec.jittor_factory)
    args = _argument(spec.factory_args, root)
    kwargs = _argument(spec.factory_kwargs, root)
    try:
        model = resolve(factory, _loss_root(spec, side, converted_loss) if factory_in_loss(spec) else root)(
            *args, **kwargs)
    except SpecError:
        raise
    except Exception as e:
        raise SpecError(f"{spec.path}: building {factory}(...) on the {side} side failed: "
                        f"{type(e).__name__}: {e}") from e
    call_kwargs = _argument(spec.forward_kwargs, root)
    method = spec.method
    if method is not None and not callable(getattr(model, method, None)):
        raise SpecError(f"{spec.path}: {type(model).__name__} has no method {method!r}")

    def call(m: Any, inputs: Dict[str, Any]) -> Any:
        fn = getattr(m, method) if method else m
        return fn(*inputs.values(), **call_kwargs)

    forward = resolve(spec.forward, root) if spec.forward else (
        call if method or call_kwargs else default_forward)
    if spec.loss_inputs:  # forward sees [inputs] only; the loss sees both tables
        full = forward

        def forward(m: Any, inputs: Dict[str, Any]) -> Any:
            return full(m, {k: v for k, v in inputs.items() if k in spec.inputs})
    if not spec.shared_random:
        return model, forward
    if shared_random is None:
        raise SpecError(f"{spec.path}: shared_random needs the {side} side's random patcher")

    def seeded(m: Any, inputs: Dict[str, Any]) -> Any:
        with shared_random(SeededStream(spec.seed + 7919)):
            return forward(m, inputs)

    return model, seeded


def resolve(target: str, root: Path, callable_only: bool = True) -> Any:
    """Import ``module:callable`` (any attribute unless ``callable_only``) with ``root`` first
    on ``sys.path``."""
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
    if not hasattr(module, attr):
        raise SpecError(f"{module_name}.{attr} is missing")
    fn = getattr(module, attr)
    if callable_only and not callable(fn):
        raise SpecError(f"{module_name}.{attr} is not callable")
    return fn
