"""The mapping table: torch API -> Jittor target, as data.

The table lives in the ``*.toml`` files of this folder (one per area: ``torch.toml``,
``tensor.toml``, ``nn.toml``, ``functional.toml``, ...).  Each top-level key is a torch API's
qualified name; tensor methods are keyed ``torch.Tensor.<name>``.  A row::

    ["torch.nn.functional.leaky_relu"]
    status = "direct"                 # direct | shim | rewritten | unsupported
    target = "jittor.nn.leaky_relu"   # jittor.* or shims.*; ".name" = a method of the receiver
    params = ["input", "negative_slope", "inplace"]   # torch's positional order
    rename = { negative_slope = "scale" }             # torch keyword -> target keyword
                                      # ("*": its value becomes the positional arguments of a
                                      # target taking ``*shape``: zeros(size=s) -> jt.zeros(*s))
    drop = { inplace = "Jittor ops never modify their input; harmless" }
    reject = { padding_mode = { reason = "...", allow = ["'zeros'"] } }
    then = { requires_grad = ".requires_grad_" }      # the argument becomes a method call on
                                                      # the result: zeros(3).requires_grad_(True)
    reason = "shown to users for unsupported / shim / rewritten rows"
    kind = "function"                 # function | class | method | attribute | module
    differentiable = true             # the API harness checks gradients of such rows
    receiver = "arg0"                 # methods only: receiver becomes the first argument
                                      # of a function target (``x.var(1)`` -> ``shims.var(x, 1)``)
    note = "how to run code using it"  # shown with the report summary when a use converts

``drop`` arguments are removed (their reason goes into the report's notes).  ``reject``
arguments make the call unsupported unless their source text is one of ``allow``.  A ``then``
argument is removed and its value passed to the named method of the call's result (a literal
``False`` is simply removed: the Jittor default).
Every argument the target lacks must be in ``rename``, ``drop``, ``reject`` or ``then``: the
table never drops a semantics-changing argument silently.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, Mapping, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

STATUSES = ("direct", "shim", "rewritten", "unsupported")
#: the roots of torch's own names; a row under any other root (``tensorboardX.SummaryWriter``)
#: is a third-party package's API that takes torch tensors and has a torch twin jtport ports
TORCH_ROOTS = ("torch", "torchvision")
KINDS = ("function", "class", "method", "attribute", "module")
TABLE_DIR = Path(__file__).resolve().parent


class TableError(ValueError):
    """A row of the mapping table is malformed; the message names file and key."""


@dataclass(frozen=True)
class Reject:
    """An argument whose presence makes a call unsupported, unless its value is allowed."""

    reason: str
    allow: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ApiEntry:
    """One row of the table: how one torch API is ported."""

    api: str
    status: str
    target: Optional[str] = None
    params: Tuple[str, ...] = ()
    rename: Mapping[str, str] = field(default_factory=dict)
    drop: Mapping[str, str] = field(default_factory=dict)
    reject: Mapping[str, Reject] = field(default_factory=dict)
    then: Mapping[str, str] = field(default_factory=dict)
    reason: str = ""
    kind: str = "function"
    differentiable: bool = False
    receiver: Optional[str] = None
    note: str = ""
    source: str = ""
    #: class rows: the keyword arguments the target accepts (``target_params.json``); None
    #: when unknown or the target takes ``**kwargs``
    accepts: Optional[FrozenSet[str]] = None
    #: the parameter names torch's own signature gives (``torch_params.json``); None when unknown
    torch_takes: Optional[FrozenSet[str]] = None
    #: where torch's signature takes ``out`` by position (``torch.norm``: 4), or None
    out_position: Optional[int] = None

    @property
    def is_method(self) -> bool:
        """True for ``torch.Tensor.<name>`` rows."""
        return self.api.startswith("torch.Tensor.")

    @property
    def short_name(self) -> str:
        """The last segment of the API (``var`` for ``torch.Tensor.var``)."""
        return self.api.rsplit(".", 1)[-1]

    def lacks_factory(self, name: str) -> bool:
        """``name`` is a torch factory keyword (``device``/``dtype``, which torch's layers take)
        this ``torch.nn`` class row's target does not take and the row says nothing about
        (``shims.namespace`` handles it at run time)."""
        return name in FACTORY_KEYWORDS and self.kind == "class" and self.api.startswith("torch.nn.") \
            and self.accepts is not None and name not in self.accepts \
            and (self.torch_takes is None or name in self.torch_takes) \
            and name not in self.rename and name not in self.reject

    @property
    def has_policy(self) -> bool:
        """A direct/shim class or function row whose target alone does not take torch's arguments
        (renamed, dropped, rejected or moved ones, or a factory keyword it lacks): as a value, it
        is the target with the policy applied at run time (``shims.namespace``)."""
        return self.status in ("direct", "shim") and self.kind in ("class", "function") \
            and bool(self.target) and not self.target.startswith(".") \
            and bool(self.rename or self.drop or self.reject or self.then
                     or any(self.lacks_factory(n) for n in FACTORY_KEYWORDS))


#: a ``rename`` target: the keyword's value becomes the target's positional arguments
SPREAD = "*"

#: torch's factory keywords (a layer's or tensor's placement and type)
FACTORY_KEYWORDS = ("device", "dtype")


_KEYS = {"status", "target", "params", "rename", "drop", "reject", "then", "reason", "kind",
         "differentiable", "receiver", "note"}


def _entry(api: str, row: dict, source: str) -> ApiEntry:
    where = f"{source}: [{api!r}]"
    unknown = set(row) - _KEYS
    if unknown:
        raise TableError(f"{where}: unknown keys {sorted(unknown)}")
    status = row.get("status")
    if status not in STATUSES:
        raise TableError(f"{where}: status must be one of {STATUSES}, not {status!r}")
    kind = row.get("kind", "method" if api.startswith("torch.Tensor.") else "function")
    if kind not in KINDS:
        raise TableError(f"{where}: kind must be one of {KINDS}, not {kind!r}")
    target = row.get("target")
    if status in ("direct", "shim") and not target:
        raise TableError(f"{where}: a {status} row needs a target")
    if status == "shim" and target and not target.startswith("shims."):
        raise TableError(f"{where}: a shim row's target must be in shims.*")
    if status in ("unsupported", "rewritten") and not row.get("reason"):
        raise TableError(f"{where}: an {status} row needs a reason")
    if target and not (target.startswith(("jittor", "shims.", ".")) or target in ("jittor",)):
        raise TableError(f"{where}: target must start with jittor, shims. or '.'")
    reject = {}
    for arg, spec in row.get("reject", {}).items():
        if isinstance(spec, str):
            spec = {"reason": spec}
        reject[arg] = Reject(spec["reason"], tuple(spec.get("allow", ())))
    then = dict(row.get("then", {}))
    for arg, method in then.items():
        if not (isinstance(method, str) and method.startswith(".") and method[1:].isidentifier()):
            raise TableError(f"{where}: then.{arg} must name a method of the result ('.name')")
    receiver = row.get("receiver")
    if receiver not in (None, "arg0"):
        raise TableError(f"{where}: receiver must be 'arg0'")
    return ApiEntry(api=api, status=status, target=target, params=tuple(row.get("params", ())),
                    rename=dict(row.get("rename", {})), drop=dict(row.get("drop", {})),
                    reject=reject, then=then, reason=row.get("reason", ""), kind=kind,
                    differentiable=bool(row.get("differentiable", False)),
                    receiver=receiver, note=row.get("note", ""), source=source)


class MappingTable:
    """All rows of the table, by torch qualified name, plus an index of tensor methods."""

    def __init__(self, entries: Dict[str, ApiEntry], members: Optional[Mapping[str, frozenset]] = None,
                 tensor_attributes: frozenset = frozenset(), star: Optional[Mapping[str, Mapping[str, str]]] = None,
                 surface: Optional[Mapping[str, Tuple[str, ...]]] = None):
        self.entries = entries
        self.methods = {e.short_name: e for e in entries.values() if e.is_method}
        #: torch's public surface by namespace (``torch_members.json``); empty for a table
        #: without one (the golden tests' pinned tables)
        self.members: Mapping[str, frozenset] = members or {}
        #: ``torch.Tensor``'s data attributes (read without a call: ``x.grad_fn``, ``x.T``)
        self.tensor_attributes = tensor_attributes
        #: what ``from <module> import *`` binds, by module: name -> torch qualified name, or
        #: ``python:<origin>`` for a name that is not torch's (``math``)
        self.star: Mapping[str, Mapping[str, str]] = star or {}
        #: torch's whole public surface by namespace (``generate_members.SURFACE``): what the
        #: coverage page measures the table against
        self.surface: Mapping[str, Tuple[str, ...]] = surface or {}
        #: rows of third-party packages (a root not in TORCH_ROOTS): only these names of such a
        #: package are converted; the rest of it stays as written
        self.third_party: FrozenSet[str] = frozenset(a for a in entries if a.split(".", 1)[0] not in TORCH_ROOTS)
        #: every root whose imports the converter tracks: torch's and the third-party rows'
        self.roots: Tuple[str, ...] = (*TORCH_ROOTS, *sorted({a.split(".", 1)[0] for a in self.third_party}))

    def get(self, api: str) -> Optional[ApiEntry]:
        """The row for a torch qualified name, or None."""
        return self.entries.get(api)

    def method(self, name: str) -> Optional[ApiEntry]:
        """The row for tensor method ``name`` (``torch.Tensor.<name>``), or None."""
        return self.methods.get(name)

    def __iter__(self) -> Iterator[ApiEntry]:
        return iter(sorted(self.entries.values(), key=lambda e: e.api))

    def __len__(self) -> int:
        return len(self.entries)


# complexity: reads and validates every TOML file's rows in one place, where each error names its file and key
def load_table(directory: Path = TABLE_DIR) -> MappingTable:  # noqa: C901
    """Read every ``*.toml`` file of ``directory``; a key defined twice is an error."""
    entries: Dict[str, ApiEntry] = {}
    for path in sorted(Path(directory).glob("*.toml")):
        with open(path, "rb") as f:
            try:
                data = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise TableError(f"{path.name}: {e}") from None
        for api, row in data.items():
            if api in entries:
                raise TableError(f"{path.name}: [{api!r}] is already defined in {entries[api].source}")
            entries[api] = _entry(api, row, path.name)

    accepts = Path(directory) / "target_params.json"
    if accepts.exists():
        # written from the targets' signatures by generate_target_params.py (the loader cannot
        # import Jittor): the keyword arguments each class row's target takes
        params = json.loads(accepts.read_text(encoding="utf-8"))
        for api, e in entries.items():
            if e.kind == "class" and params.get(e.target) is not None:
                entries[api] = dataclasses.replace(e, accepts=frozenset(params[e.target]))
    signatures = Path(directory) / "torch_params.json"
    if signatures.exists():
        # written from torch's signatures by generate_torch_params.py: a row that does not list
        # torch's positional order gets it from torch, so a positional argument is known by name
        # (rejected, dropped or renamed like its keyword form)
        torch_params = json.loads(signatures.read_text(encoding="utf-8"))
        for api, e in entries.items():
            if api in torch_params:
                order = [n for n, kind in torch_params[api] if kind in ("p", "o")]
                e = entries[api] = dataclasses.replace(e, torch_takes=frozenset(n for n, _ in torch_params[api]),
                                                       out_position=order.index("out") if "out" in order else None)
            if not e.params and api in torch_params:
                positional = []
                for name, kind in torch_params[api]:
                    if kind not in ("p", "o") or name == "out":
                        break  # out= is the converter's own rewrite (an assignment), never passed on
                    positional.append(name)
                entries[api] = dataclasses.replace(e, params=tuple(positional))
    path = Path(directory) / "torch_members.json"
    if not path.exists():
        return MappingTable(entries)

    # written from torch by generate_members.py: every public member of torch.Tensor, torch,
    # torch.nn and torch.nn.functional by namespace, Tensor's data attributes, star imports
    data = json.loads(path.read_text(encoding="utf-8"))
    members = {k: frozenset(v) for k, v in data.items() if k.startswith("torch") and isinstance(v, list)}
    for alias, public in data.get("aliases", {}).items():
        # torch.nn.modules.linear.Linear is torch.nn.Linear: the same row under the path it is defined at
        if alias not in entries and public in entries:
            entries[alias] = dataclasses.replace(entries[public], api=alias)
    surface = {ns: tuple(names) for ns, names in data.get("surface", {}).items()}
    return MappingTable(entries, members, frozenset(data.get("tensor_attributes", ())), data.get("star", {}), surface)


@lru_cache(maxsize=1)
def default_table() -> MappingTable:
    """The table shipped with jtport (read once per process)."""
    return load_table()
