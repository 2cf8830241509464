"""Per-API parity cases as data: a torch snippet, its inputs and how to compare its results.

This module is imported by both virtualenvs (the torch side and the Jittor side), so it
imports neither framework: only numpy.

A case's ``src`` is torch code that reads its inputs by name and assigns its results to the
names in ``outputs``.  ``setup`` (optional) builds modules; the torch side saves the
``state_dict`` of every ``nn.Module`` it creates and the Jittor side loads it into the
converted modules before running ``src``, so both sides run with the same weights.  Both
are prefixed with :data:`PRELUDE` (the imports research code writes) and converted by the
real converter on the Jittor side.

Input specs (``inputs={"x": "f32[4,5]"}``): ``KIND[SHAPE]`` with KIND one of
``f32``/``f64`` (standard normal), ``pos`` (uniform 0.5..2, float32), ``u01`` (uniform
0.05..0.95), ``u11`` (uniform -0.9..0.9), ``gt1`` (uniform 1.1..3), ``tie`` (float32 integers
-2..2: many equal values, for gradients at ties), ``i64<lo,hi>`` /
``i32<lo,hi>`` (integers in [lo, hi)), ``u8<lo,hi>``, ``bool``; an empty shape ``[]`` is a
0-d tensor.  Values are drawn from a numpy generator seeded by the case id.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

PRELUDE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
)

#: compare modes: ``value`` (values, shapes, dtypes), ``shape`` (shape and dtype only: random
#: draws), ``stats`` (shape, dtype, and mean/std within ``atol``: random initialisers).
COMPARES = ("value", "shape", "stats")

#: how much further from the float64 gradient than torch's float32 one a ``ref64`` case's may be
ACCURACY_FACTOR = 2.0

_SPEC = re.compile(r"^(?P<kind>[a-z0-9]+)(?:<(?P<lo>-?\d+),(?P<hi>-?\d+)>)?\[(?P<shape>[\d, ]*)\]$")


class CaseError(ValueError):
    """A case is malformed; the message names the case."""


@dataclass(frozen=True)
class Case:
    """One parity case for one mapped API."""

    id: str
    api: str
    src: str
    inputs: Mapping[str, str] = field(default_factory=dict)
    outputs: Tuple[str, ...] = ("out",)
    setup: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    why: str = ""
    compare: str = "value"
    grad: bool = True
    extra_prelude: str = ""
    const: Tuple[str, ...] = ()  # float inputs that are never differentiated (running stats)
    #: the table rejects this call form: the case checks the converter reports it (JT001/JT002)
    #: instead of comparing values; ``why`` says what is rejected
    expect_unsupported: bool = False
    #: a measured gap not closed yet: the case is run and must fail (pytest xfail, strict);
    #: the text is the measured cause
    xfail: str = ""
    #: judge accuracy against float64: the torch side also differentiates the case in float64
    #: (inputs and modules cast), and each float32 gradient of the port must be within
    #: :data:`ACCURACY_FACTOR` x torch's own float32 error (both against that reference)
    ref64: bool = False

    def source(self, part: str) -> str:
        """The full torch source of ``setup`` or ``src`` (with the import prelude)."""
        body = self.setup if part == "setup" else self.src
        return PRELUDE + self.extra_prelude + body.strip() + "\n"


def parse_spec(spec: str):
    """``"i64<0,5>[3,4]"`` -> (kind, lo, hi, shape)."""
    m = _SPEC.match(spec.replace(" ", ""))
    if not m:
        raise CaseError(f"bad input spec {spec!r}")
    shape = tuple(int(s) for s in m["shape"].split(",") if s)
    lo = int(m["lo"]) if m["lo"] is not None else None
    hi = int(m["hi"]) if m["hi"] is not None else None
    return m["kind"], lo, hi, shape


def make_inputs(case: Case) -> Dict[str, np.ndarray]:
    """The case's inputs, drawn from a generator seeded by the case id (same on both sides)."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    out: Dict[str, np.ndarray] = {}
    for name, spec in case.inputs.items():
        kind, lo, hi, shape = parse_spec(spec)
        if kind == "f32":
            a = rng.standard_normal(shape).astype(np.float32)
        elif kind == "f64":
            a = rng.standard_normal(shape).astype(np.float64)
        elif kind == "pos":
            a = rng.uniform(0.5, 2.0, shape).astype(np.float32)
        elif kind == "u01":
            a = rng.uniform(0.05, 0.95, shape).astype(np.float32)
        elif kind == "u11":
            a = rng.uniform(-0.9, 0.9, shape).astype(np.float32)
        elif kind == "gt1":
            a = rng.uniform(1.1, 3.0, shape).astype(np.float32)
        elif kind == "tie":
            a = rng.integers(-2, 3, shape).astype(np.float32)
        elif kind in ("i64", "i32", "u8"):
            if lo is None:
                raise CaseError(f"{case.id}: integer spec {spec!r} needs <lo,hi>")
            a = rng.integers(lo, hi, shape).astype({"i64": np.int64, "i32": np.int32, "u8": np.uint8}[kind])
        elif kind == "bool":
            a = rng.random(shape) < 0.5
        else:
            raise CaseError(f"{case.id}: unknown input kind {kind!r} in {spec!r}")
        out[name] = np.asarray(a)
    return out


def projection(case: Case, key: str, shape: Tuple[int, ...]) -> np.ndarray:
    """The fixed random tensor R whose ``sum(out * R)`` is differentiated for output ``key``."""
    rng = np.random.default_rng(zlib.crc32(f"{case.id}/R/{key}".encode()))
    return rng.standard_normal(shape).astype(np.float64)


def all_cases() -> List[Case]:
    """Every case of every module in :mod:`parity_tests.api.cases` (each defines ``CASES``),
    checked: ids unique, compare mode known, specs valid."""
    from . import cases as pkg

    found: List[Case] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        found.extend(mod.CASES)
    seen = set()
    for c in found:
        if c.id in seen:
            raise CaseError(f"case id {c.id!r} is defined twice")
        seen.add(c.id)
        if c.compare not in COMPARES:
            raise CaseError(f"{c.id}: compare must be one of {COMPARES}")
        for spec in c.inputs.values():
            parse_spec(spec)
    return found


def api_makers(area: str, inputs: Mapping[str, str]):
    """Case makers for ``torch.NAME``, ``torch.Tensor.NAME`` and ``torch.nn.functional.NAME``
    in ``area``, each taking ``(name, src, inputs=inputs, variant="", **kw)``."""
    def maker(prefix: str):
        def make(name: str, src: str, inputs: Optional[Mapping[str, str]] = inputs, variant: str = "", **kw) -> Case:
            return case(area, prefix + name, src, inputs, variant=variant, **kw)
        return make
    return maker("torch."), maker("torch.Tensor."), maker("torch.nn.functional.")


def moments_src(expr: str, mean: float, std: float, tol: float) -> str:
    """Case source that draws ``y = expr`` and checks its mean and std against the distribution's."""
    return (f"y = {expr}\nout = (abs(y.float().mean().item() - {mean}) < {tol}, "
            f"abs(y.float().std().item() - {std}) < {tol})")


def read_case_ids(path) -> List[str]:
    """The case ids a selection file lists: one a line; blank lines and ``#`` comments skipped."""
    with open(path, encoding="utf8") as f:
        lines = [line.split("#", 1)[0].strip() for line in f]
    return [line for line in lines if line]


def area_of(case: Case) -> str:
    """The npz file a case's torch results go to (its case module)."""
    return case.id.split(":", 1)[0]


def uid(area: str, api: str, variant: str = "") -> str:
    """A case id: ``area:api[/variant]``."""
    return f"{area}:{api}" + (f"/{variant}" if variant else "")


def case(area: str, api: str, src: str, inputs: Optional[Mapping[str, str]] = None,
         variant: str = "", **kw) -> Case:
    """Shorthand for :class:`Case` with an id built from area, api and variant."""
    return Case(id=uid(area, api, variant), api=api, src=src, inputs=dict(inputs or {}), **kw)
