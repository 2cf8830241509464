"""What both sides of the model-parity harness share: numpy only (no torch, no Jittor).

The torch side (:mod:`.torch_dump`, ``.venv-torch``) and the Jittor side (:mod:`.model`,
``.venv``) import this module, so inputs, flattened output names, activation keys and the
error measure are defined once.
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Sequence, Tuple, Union

import numpy as np

#: Activation key of the model itself (``named_modules`` calls it "").
ROOT_NAME = "<root>"
_ACT_KEY = re.compile(r"^(?P<call>.*@\d+)(?P<suffix>(\.[^@]*)?)$")


def seeded_array(shape: Sequence[int], seed: int, dist: str = "normal", low: float = 0.0,
                 high: float = 1.0, dtype: str = "float32") -> np.ndarray:
    """A reproducible numpy array: ``dist`` is ``normal`` (standard), ``uniform`` in
    ``[low, high)`` or ``randint`` in ``[low, high)`` (int64 unless ``dtype`` says otherwise)."""
    rng = np.random.default_rng(seed)
    if dist == "normal":
        out = rng.standard_normal(tuple(shape))
    elif dist == "uniform":
        out = rng.uniform(low, high, tuple(shape))
    elif dist == "randint":
        out = rng.integers(int(low), int(high), tuple(shape))
        dtype = "int64" if dtype == "float32" else dtype
    else:
        raise ValueError(f"seeded_array: unknown dist {dist!r} (normal, uniform, randint)")
    return np.asarray(out).astype(dtype)


InputSpec = Union[Sequence[int], Mapping[str, Any]]


def make_inputs(specs: Mapping[str, InputSpec], seed: int) -> Dict[str, np.ndarray]:
    """Seeded inputs from ``{name: shape}`` or ``{name: {"shape": ..., "dist": ..., ...}}``.

    Input ``i`` uses seed ``seed + i``, so adding an input does not change the others."""
    out: Dict[str, np.ndarray] = {}
    for i, (name, spec) in enumerate(specs.items()):
        if isinstance(spec, Mapping):
            kw = dict(spec)
            if "shape" not in kw:
                raise ValueError(f"input {name!r}: a dict spec needs a 'shape'")
            shape = kw.pop("shape")
            out[name] = seeded_array(shape, seed + i, **kw)
        else:
            out[name] = seeded_array(spec, seed + i)
    return out


def loss_weight_seed(seed: int, index: int) -> int:
    """Seed of the default loss's weights for the ``index``-th flattened output."""
    return seed + 1000 + index


def flatten(obj: Any, prefix: str, is_tensor: Callable[[Any], bool]) -> List[Tuple[str, Any]]:
    """The tensors inside a (nested) output: a tensor is ``prefix``; tuple/list items are
    ``prefix.<i>``; dict items ``prefix.<key>``; anything else (None, ints) is skipped."""
    if is_tensor(obj):
        return [(prefix, obj)]
    if isinstance(obj, (tuple, list)):
        return [kv for i, v in enumerate(obj) for kv in flatten(v, f"{prefix}.{i}", is_tensor)]
    if isinstance(obj, Mapping):
        return [kv for k, v in obj.items() for kv in flatten(v, f"{prefix}.{k}", is_tensor)]
    return []


def map_nested(obj: Any, is_leaf: Callable[[Any], bool], fn: Callable[[Any], Any]) -> Any:
    """``obj`` with every leaf (``is_leaf``) inside dicts, lists and tuples, at any depth,
    replaced by ``fn(leaf)``; anything else is kept as it is."""
    if is_leaf(obj):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: map_nested(v, is_leaf, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_nested(v, is_leaf, fn) for v in obj)
    return obj


def act_call(name: str) -> str:
    """The ``<qualname>@<call>`` part of a flattened activation name."""
    m = _ACT_KEY.match(name)
    if not m:
        raise ValueError(f"not an activation key: {name!r}")
    return m.group("call")


@dataclass
class Comparison:
    """The outcome of comparing one array against its torch reference.

    Errors are measured against the reference's scale: ``max_abs_err = max|got - ref|``,
    ``max_rel_err = max_abs_err / max|ref|``; the comparison holds when
    ``max_abs_err <= atol + rtol * max|ref|``.  (Element-wise relative error is meaningless
    for the near-zero entries every activation and gradient has.)
    """

    name: str
    ok: bool
    max_abs_err: float
    max_rel_err: float
    got_shape: Tuple[int, ...]
    ref_shape: Tuple[int, ...]
    reason: str = ""

    def describe(self) -> str:
        """One line for reports."""
        shape = (f"shape {self.got_shape}" if self.got_shape == self.ref_shape
                 else f"shape {self.got_shape} vs torch {self.ref_shape}")
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.name}: {shape}, max abs err {self.max_abs_err:.3g}, rel {self.max_rel_err:.3g}{why}"


def compare(name: str, got: Any, ref: Any, rtol: float, atol: float) -> Comparison:
    """Compare ``got`` with the reference ``ref`` (see :class:`Comparison` for the measure).

    A one-element result compares with a 0-d reference (Jittor has no 0-d Vars); NaN/inf
    must sit at the same places with the same values."""
    got = np.asarray(got)
    ref = np.asarray(ref)
    gs, rs = tuple(got.shape), tuple(ref.shape)
    if gs != rs:
        if got.size == ref.size == 1:
            got = got.reshape(rs)
        else:
            return Comparison(name, False, float("inf"), float("inf"), gs, rs, "shape mismatch")
    if ref.dtype == bool or got.dtype == bool:
        got, ref = got.astype(np.int64), ref.astype(np.int64)
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    if g.size == 0:
        return Comparison(name, True, 0.0, 0.0, gs, rs)
    gf, rf = np.isfinite(g), np.isfinite(r)
    if not np.array_equal(gf, rf) or not np.array_equal(g[~gf], r[~rf], equal_nan=True):
        return Comparison(name, False, float("inf"), float("inf"), gs, rs, "non-finite values differ")
    diff = np.abs(g[gf] - r[rf])
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.abs(r[rf]).max()) if diff.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    ok = max_abs <= atol + rtol * scale
    return Comparison(name, ok, max_abs, max_rel, gs, rs)


class SeededStream:
    """A numpy normal stream both sides can draw from identically ("shared seed").

    Torch's and Jittor's RNGs differ, so a model that draws noise inside ``forward`` is made
    comparable by routing its draws (``torch.randn`` on one side, ``jt.randn`` on the other,
    see ``torch_dump.patched_randn`` / ``model.patched_randn``) to this stream: the same calls
    with the same shapes in the same order get the same numbers.
    """

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.shapes: List[Tuple[int, ...]] = []

    def normal(self, shape: Sequence[int]) -> np.ndarray:
        """The next standard-normal float32 array of ``shape``."""
        shape = tuple(int(s) for s in shape)
        self.shapes.append(shape)
        return self.rng.standard_normal(shape).astype(np.float32)

    def uniform(self, shape: Sequence[int], low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """The next float32 array of ``shape``, uniform in ``[low, high)``."""
        shape = tuple(int(s) for s in shape)
        self.shapes.append(shape)
        return self.rng.uniform(float(low), float(high), shape).astype(np.float32)


def size_args(size: Sequence[Any]) -> Tuple[int, ...]:
    """The shape of a ``randn(*size)`` call: ``randn(2, 3)``, ``randn([2, 3])``, ``randn((2, 3))``,
    ``randn(x.shape)`` (a torch Size or a Jittor NanoVector, which is not iterable)."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)) and hasattr(size[0], "__len__"):
        size = [size[0][i] for i in range(len(size[0]))]
    return tuple(int(s) for s in size)


@contextlib.contextmanager
def patched(patches: Iterable[Tuple[Any, str, Any]]) -> Iterator[None]:
    """Within the block each ``(owner, name, value)`` of ``patches`` is set; restored after."""
    patches = list(patches)
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
