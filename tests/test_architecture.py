"""The house's import directions (docs/ARCHITECTURE.md, "Flows and import directions"), read from the tree.

Every module of ``porter``, ``shims`` and ``bench`` is parsed with libcst; each import becomes an
arrow from the importing module to the project module it names.  Imports at module level (a class
body and an ``if``/``try`` at module level included; ``if TYPE_CHECKING:`` blocks excluded) always
count.  An import inside a function counts too, unless a comment on its line (or right above it,
or above the imports right above it) says ``lazy:`` and why (an optional dependency, a measured import
cost): such an import is not part of any circle, but an arrow back up stays an error unless it
is listed in :data:`ALLOWED_UP`.

The rules:

* layers run down only: ``porter.cli`` → {``porter.convert``, ``porter.prove``, ``porter.doctor``}
  → ``shims`` → the leaves (``porter.mapping``, ``porter.machine``, the ``porter`` package itself);
  ``porter.prove`` may use ``porter.convert`` (it proves the real conversion), never the reverse;
* the leaves import the standard library (and each other) only;
* ``porter.prove.torch_side`` (run by ``.venv-torch``) imports the standard library, numpy, torch
  and the prove modules both sides share (:data:`SHARED_WITH_TORCH`), which import the standard
  library, numpy and each other at module level only;
* the product (``porter``, ``shims``) never imports ``parity_tests``, ``tests``, ``bench`` or
  ``models_ref``; ``bench`` imports the product, never the test suites;
* ``shims`` never imports torch;
* no circle of imports inside ``porter`` or ``shims``.
"""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

import porter

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("porter", "shims", "bench")
SUITES = ("parity_tests", "tests", "bench", "models_ref")
LAZY = re.compile(r"#.*\blazy:")

LEAVES = ("porter.mapping", "porter.machine")
TORCH_SIDE = "porter.prove.torch_side"
#: The prove modules the torch side imports: standard library and numpy at module level.
SHARED_WITH_TORCH = ("porter.prove.common", "porter.prove.spec", "porter.prove.checkpoint",
                     "porter.prove.checkpoint_files", "porter.prove.workspace", "porter.prove.loss_terms")
#: Arrows back up that stay, each with its reason (also in a comment at the import).
ALLOWED_UP = {
    # a network pickle embeds torch source: loading it converts that source at run time, and
    # converted programs run without anyone to hand them a converter (shims/checkpoint/persistent.py)
    ("shims.checkpoint.persistent", "porter.convert"),
}


@dataclass(frozen=True)
class Arrow:
    """One import: ``source`` imports ``target`` (a module of the tree, or an outside top-level name)."""

    source: str
    target: str
    line: int
    local: bool   # inside a function
    lazy: bool    # inside a function, with a ``lazy:`` comment saying why

    def __str__(self) -> str:
        where = "function-local " if self.local else ""
        return f"{self.source}:{self.line} {where}imports {self.target}"


def module_name(path: Path) -> str:
    """``porter/prove/spec.py`` → ``porter.prove.spec``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_index() -> Dict[str, Path]:
    """Every module of :data:`PACKAGES`, by dotted name."""
    index = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                index[module_name(path)] = path
    return index


def _dotted(node: Optional[cst.BaseExpression]) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


class _Imports(cst.CSTVisitor):
    """Collects ``(dotted targets, line, local, lazy)`` for each import statement of a module."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: str, is_package: bool, lines: Sequence[str]):
        super().__init__()
        self.module, self.is_package, self.lines = module, is_package, lines
        self.depth = 0            # functions we are inside
        self.type_checking = 0    # ``if TYPE_CHECKING:`` blocks we are inside
        self.found: List[Tuple[List[str], int, bool, bool]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_If(self, node: cst.If) -> None:
        if _dotted(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            self.type_checking += 1

    def leave_If(self, node: cst.If) -> None:
        if _dotted(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            self.type_checking -= 1

    def _record(self, node: cst.CSTNode, targets: List[str]) -> None:
        if self.type_checking:
            return
        line = self.get_metadata(PositionProvider, node).start.line
        nearby = [self.lines[line - 1]]  # the import's line, the comments and imports right above it
        above = line - 2
        while above >= 0 and (not self.lines[above].strip()
                              or self.lines[above].lstrip().startswith(("#", "import ", "from "))):
            nearby.append(self.lines[above])
            above -= 1
        local = self.depth > 0
        self.found.append((targets, line, local, local and any(LAZY.search(n) for n in nearby)))

    def visit_Import(self, node: cst.Import) -> None:
        self._record(node, [_dotted(alias.name) for alias in node.names])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = _dotted(node.module)
        if node.relative:
            package = self.module.split(".")
            if not self.is_package:
                package.pop()
            up = len(node.relative) - 1
            package = package[:len(package) - up] if up else package
            base = ".".join(package + ([base] if base else []))
        names = [] if isinstance(node.names, cst.ImportStar) else [_dotted(a.name) for a in node.names]
        # ``from pkg import sub`` imports the module ``pkg.sub`` when there is one
        self._record(node, [base] + [f"{base}.{n}" for n in names])


def arrows(index: Optional[Dict[str, Path]] = None) -> List[Arrow]:
    """Every import of the tree's modules, as :class:`Arrow` objects (project modules resolved)."""
    index = module_index() if index is None else index
    found = []
    for module, path in index.items():
        source = path.read_text(encoding="utf8")
        visitor = _Imports(module, path.name == "__init__.py", source.splitlines())
        MetadataWrapper(cst.parse_module(source)).visit(visitor)
        for targets, line, local, lazy in visitor.found:
            base, *subs = targets
            named = [t for t in subs if t in index or _resolve(t, index) != _resolve(base, index)] or [base]
            for target in named:
                resolved = _resolve(target, index)
                for imported in [*_packages_entered(module, resolved, index), resolved]:
                    if imported != module:
                        found.append(Arrow(module, imported, line, local, lazy))
    return found


def _packages_entered(source: str, target: str, index: Dict[str, Path]) -> List[str]:
    """The packages whose ``__init__`` importing ``target`` runs first, beyond those ``source`` is
    already inside (importing ``shims.nn.conv`` from ``shims.ops`` runs ``shims/nn/__init__``)."""
    parts = target.split(".")
    packages = [".".join(parts[:n]) for n in range(1, len(parts))]
    return [p for p in packages if p in index and not source.startswith(p + ".")]


def _resolve(target: str, index: Dict[str, Path]) -> str:
    """The longest module of the tree ``target`` names, else its top-level name (stdlib, numpy...).
    ``porter``'s public names (``porter.convert_source``) are the converter modules they load."""
    if target.startswith("porter.") and target[len("porter."):] in porter._WHERE:
        return "porter" + porter._WHERE[target[len("porter."):]]
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in index:
            return ".".join(parts[:n])
    return parts[0]


def _within(module: str, prefixes: Sequence[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def layer(module: str) -> Optional[int]:
    """0 leaves, 1 runtime, 2 the flows (convert, prove, doctor), 3 the command line; None: outside."""
    if module == "porter" or _within(module, LEAVES):
        return 0
    if _within(module, ("shims",)):
        return 1
    if _within(module, ("porter.convert", "porter.prove", "porter.doctor")):
        return 2
    if _within(module, ("porter",)):
        return 3
    return None


def _counted(a: Arrow) -> bool:
    return not a.lazy


def arrows_up(found: Sequence[Arrow]) -> List[Arrow]:
    """Arrows from a lower layer to a higher one, or sideways between two flows other than
    prove → convert, not listed in :data:`ALLOWED_UP` (lazy ones included)."""
    bad = []
    for a in found:
        src, dst = layer(a.source), layer(a.target)
        if src is None or dst is None or any(a.source == s and _within(a.target, (t,)) for s, t in ALLOWED_UP):
            continue
        if dst > src:
            bad.append(a)
        elif dst == src == 2:
            flow = lambda m: m.split(".")[1]  # noqa: E731
            if flow(a.source) != flow(a.target) and (flow(a.source), flow(a.target)) != ("prove", "convert"):
                bad.append(a)
    return bad


def cycles(found: Sequence[Arrow], prefixes: Sequence[str] = ("porter", "shims")) -> List[List[str]]:
    """The import circles (strongly connected components of more than one module) among counted arrows."""
    graph: Dict[str, Set[str]] = {}
    for a in found:
        if _counted(a) and _within(a.source, prefixes) and _within(a.target, prefixes):
            graph.setdefault(a.source, set()).add(a.target)
            graph.setdefault(a.target, set())
    return [sorted(c) for c in _components(graph) if len(c) > 1]


def _components(graph: Dict[str, Set[str]]) -> Iterator[List[str]]:
    """Tarjan's strongly connected components, iteratively."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                yield component


def _outside(a: Arrow, index: Dict[str, Path]) -> bool:
    return a.target not in index


def _stdlib(name: str) -> bool:
    return name in sys.stdlib_module_names or name in ("__future__", "tomli")  # tomli: tomllib before 3.11


# --- the tests ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _tree() -> Tuple[Dict[str, Path], Tuple[Arrow, ...]]:
    """The tree's modules and arrows, read once per session (on first use, not at collection)."""
    index = module_index()
    return index, tuple(arrows(index))


def _show(bad: Sequence[object]) -> str:
    return "\n".join(str(b) for b in bad)


def test_the_graph_is_read():
    ARROWS = _tree()[1]
    # the parser sees the arrows the house is built on (a broken reader would pass every rule)
    pairs = {(a.source, a.target) for a in ARROWS}
    assert ("porter.cli", "porter.convert.engine") in pairs
    assert ("shims", "porter.machine.env") in pairs
    assert ("porter.convert.pipeline", "porter.convert.rules") in pairs


def test_arrows_run_down_only():
    ARROWS = _tree()[1]
    bad = arrows_up(ARROWS)
    assert not bad, "imports back up (docs/ARCHITECTURE.md):\n" + _show(bad)


def test_no_import_circles_in_porter_or_shims():
    ARROWS = _tree()[1]
    found = cycles(ARROWS)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_leaves_import_the_standard_library_only():
    ARROWS = _tree()[1]
    bad = [a for a in ARROWS if layer(a.source) == 0
           and not (_stdlib(a.target) or layer(a.target) == 0)]
    assert not bad, _show(bad)


def test_torch_side_imports_torch_numpy_and_the_shared_prove_modules_only():
    ARROWS = _tree()[1]
    allowed = ("numpy", "torch", "porter", TORCH_SIDE, *SHARED_WITH_TORCH)
    bad = [a for a in ARROWS if _within(a.source, (TORCH_SIDE,))
           and not (_stdlib(a.target) or _within(a.target, allowed))]
    shared = [a for a in ARROWS if a.source in SHARED_WITH_TORCH and not a.local
              and not (_stdlib(a.target) or a.target in ("numpy", "porter", *SHARED_WITH_TORCH))]
    assert not bad + shared, _show(bad + shared)


def test_the_product_never_imports_the_suites_and_bench_only_the_product():
    INDEX, ARROWS = _tree()
    product = [a for a in ARROWS if _within(a.source, ("porter", "shims")) and _outside(a, INDEX)
               and a.target in SUITES]
    bench = [a for a in ARROWS if _within(a.source, ("bench",)) and a.target in ("parity_tests", "tests")]
    assert not product + bench, _show(product + bench)


def test_the_runtime_never_imports_torch():
    ARROWS = _tree()[1]
    bad = [a for a in ARROWS if _within(a.source, ("shims",)) and a.target in ("torch", "torchvision")]
    assert not bad, _show(bad)


def test_function_local_imports_say_why():
    ARROWS = _tree()[1]
    bad = [a for a in ARROWS if a.local and not a.lazy and _within(a.source, ("porter", "shims"))]
    assert not bad, "imports inside functions need a `# lazy: why` comment:\n" + _show(bad)


def test_the_rules_catch_what_they_forbid():
    up = Arrow("shims.nn", "porter.convert.pipeline", 1, False, False)
    lazy_up = Arrow("shims.nn", "porter.prove.model", 1, True, True)
    assert arrows_up([up, lazy_up]) == [up, lazy_up]
    assert arrows_up([Arrow("porter.prove.spec", "porter.convert.pipeline", 1, False, False)]) == []
    assert arrows_up([Arrow("porter.convert.pipeline", "porter.prove.spec", 1, False, False)]) != []
    circle = [Arrow("shims.a", "shims.b", 1, False, False), Arrow("shims.b", "shims.a", 1, False, False)]
    assert cycles(circle) == [["shims.a", "shims.b"]]
    assert cycles([circle[0], Arrow("shims.b", "shims.a", 1, True, True)]) == []
