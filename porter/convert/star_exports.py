"""torch names a package's own modules pass on through star imports.

``layers/activations.py`` imports ``torch``, ``nn`` and ``F``; ``layers/create_act.py`` does
``from .activations import *`` and uses ``torch.nn.functional``, ``nn.ReLU`` and ``F.silu``
with no torch import of its own.  Converted one file at a time, ``create_act.py`` would look
torch-free and stay as written, and its names would be Jittor's (or unbound: the converted
``activations.py`` no longer imports ``torch``).  So before a tree is converted, each module's
single-line top-level torch imports are read (without parsing), and a file's star import of a
module of the same tree gets those imports appended on its own line (``from .activations import
*; import torch; from torch import nn``): the file is converted as if it had written them, on
the same line numbers, and its torch names get their converted meaning.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Dict, Iterable, List, Optional, Set, Tuple

_TORCH_IMPORT = re.compile(
    r"^(import\s+torch(vision)?(\.\w+)*(\s+as\s+\w+)?(\s*,\s*torch(vision)?(\.\w+)*(\s+as\s+\w+)?)*"
    r"|from\s+torch(vision)?(\.\w+)*\s+import\s+\w+(\s+as\s+\w+)?(\s*,\s*\w+(\s+as\s+\w+)?)*)\s*(#.*)?$")
_STAR = re.compile(r"^from\s+(\.*)([\w.]*)\s+import\s+\*\s*(#.*)?$")


def _bound(statement: str) -> List[str]:
    """The names a single-line import statement binds."""
    statement = statement.split("#", 1)[0].strip()
    if statement.startswith("import "):
        out = []
        for part in statement[len("import "):].split(","):
            words = part.split()
            out.append(words[-1] if "as" in words else words[0].split(".", 1)[0])
        return out
    names = statement.split(" import ", 1)[1]
    return [p.split()[-1] for p in names.split(",")]


def _module_path(rel: str) -> Tuple[str, ...]:
    """``timm/layers/activations.py`` -> ("timm", "layers", "activations");
    ``timm/layers/__init__.py`` -> ("timm", "layers")."""
    parts = PurePosixPath(rel).with_suffix("").parts
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def _star_target(rel: str, dots: str, module: str, root: str) -> Optional[Tuple[str, ...]]:
    """The module a star import names, as a path of the tree (None: outside it)."""
    own = _module_path(rel)
    package = own if rel.endswith("__init__.py") else own[:-1]
    if dots:
        up = len(dots) - 1
        if up > len(package):
            return None
        base = package[:len(package) - up]
    else:
        base = ()
        if not module or module.split(".", 1)[0] != root:
            return None
    return (*base, *[p for p in module.split(".") if p])


def star_preludes(sources: Iterable[Tuple[str, str]], root: str) -> Dict[str, Dict[int, str]]:
    """For each file (``rel`` path) that star-imports a module of the tree binding torch names,
    line number (0-based) -> the torch import statements to append to that line.  ``sources``
    are (rel path, text) pairs of the tree's Python files; ``root`` is the tree's top package."""
    imports: Dict[Tuple[str, ...], List[str]] = {}
    stars: Dict[str, List[Tuple[int, Tuple[str, ...]]]] = {}
    own: Dict[str, Set[str]] = {}
    for rel, text in sources:
        if "torch" not in text and "import *" not in text:
            continue
        mine: List[str] = []
        for i, line in enumerate(text.splitlines()):
            if not line or line[0] in " \t#":
                continue
            if _TORCH_IMPORT.match(line):
                mine.append(line.split("#", 1)[0].strip())
                continue
            m = _STAR.match(line)
            if m:
                target = _star_target(rel, m.group(1), m.group(2), root)
                if target is not None:
                    stars.setdefault(rel, []).append((i, target))
        imports[_module_path(rel)] = mine
        own[rel] = {n for s in mine for n in _bound(s)}
    out: Dict[str, Dict[int, str]] = {}
    for rel, found in stars.items():
        seen = set(own.get(rel, ()))
        for line, target in found:
            added = []
            for statement in _exported(target, imports, stars, set()):
                names = _bound(statement)
                if not any(n.startswith("_") for n in names) and not set(names) <= seen:
                    added.append(statement)
                    seen.update(names)
            if added:
                out.setdefault(rel, {})[line] = "; ".join(added)
    return out


def _exported(module: Tuple[str, ...], imports, stars, visiting: Set[Tuple[str, ...]]) -> List[str]:
    """The torch imports ``module`` binds at top level, its own and through its star imports."""
    if module in visiting:
        return []
    visiting.add(module)
    found = list(imports.get(module, ()))
    rel = next((r for r in stars if _module_path(r) == module), None)
    for _, target in stars.get(rel, ()) if rel else ():
        found.extend(_exported(target, imports, stars, visiting))
    return found


def apply_prelude(text: str, prelude: Dict[int, str]) -> str:
    """``text`` with each prelude appended to its (star-import) line, before any comment."""
    lines = text.splitlines(keepends=True)
    for i, statement in prelude.items():
        line = lines[i]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        code, sep, comment = body.partition("#")
        lines[i] = f"{code.rstrip()}; {statement}{'  ' + sep + comment if sep else ''}{ending}"
    return "".join(lines)
