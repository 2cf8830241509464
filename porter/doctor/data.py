"""Dataset downloads: URLs known to be dead, in the user's code and in Jittor's dataset cache."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Sequence, Tuple

from .base import CheckContext, Finding, _md5

@dataclass(frozen=True)
class DeadURL:
    """A dataset download location that no longer serves the files, and where else they are."""

    dataset: str
    pattern: str
    alternatives: Tuple[str, ...]
    files: Tuple[Tuple[str, str], ...]  # (file name, md5) as jittor's loader expects them
    cache_folder: str                    # under <jittor cache>/dataset


DEAD_URLS = (
    DeadURL(
        dataset="MNIST",
        pattern="yann.lecun.com/exdb/mnist",
        alternatives=("https://storage.googleapis.com/cvdf-datasets/mnist/ "
                      "(what jittor.dataset.MNIST in Jittor 1.3.11 downloads from)",
                      "https://ossci-datasets.s3.amazonaws.com/mnist/ (torchvision's mirror)"),
        files=(("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
               ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
               ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
               ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")),
        cache_folder="mnist_data",
    ),
)
_SCANNED_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".cfg", ".ini", ".toml", ".sh", ".txt")
_SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


def _scan_project(project: str, patterns: Sequence[str]) -> List[Tuple[str, int, str]]:
    """(file, line, pattern) for every known-dead URL in the project's text files."""
    hits = []
    for root, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                         and not os.path.isfile(os.path.join(root, d, "pyvenv.cfg")))
        for name in sorted(files):
            if not name.endswith(_SCANNED_SUFFIXES):
                continue
            path = os.path.join(root, name)
            try:
                if os.path.getsize(path) > 2 * 2**20:
                    continue
                with open(path, encoding="utf8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        for pattern in patterns:
                            if pattern in line:
                                hits.append((path, lineno, pattern))
            except OSError:
                continue
    return hits


def check_datasets(ctx: CheckContext) -> Finding:
    """Dataset URLs known to be dead that the user's code or Jittor's dataset cache relies on."""
    messages: List[str] = []
    fixes: List[str] = []
    if ctx.project and not os.path.isdir(ctx.project):
        return Finding("datasets", "problem", f"--project {ctx.project} is not a folder", "pass your code's folder")
    hits = _scan_project(ctx.project, [d.pattern for d in DEAD_URLS]) if ctx.project else []
    for dead in DEAD_URLS:
        where = [f"{os.path.relpath(p, ctx.project)}:{n}" for p, n, pat in hits if pat == dead.pattern]
        cached = os.path.join(ctx.cache_dir(), "dataset", dead.cache_folder)
        incomplete = []
        if os.path.isdir(cached):
            for fname, md5 in dead.files:
                path = os.path.join(cached, fname)
                if not os.path.isfile(path) or _md5(path) != md5:
                    incomplete.append(fname)
        if not where and not incomplete:
            continue
        if where:
            messages.append(f"your code downloads {dead.dataset} from {dead.pattern}, which is gone "
                            f"(HTTP 404): {', '.join(where[:5])}{' ...' if len(where) > 5 else ''}")
        if incomplete:
            messages.append(f"{cached} lacks good copies of {', '.join(incomplete)} (an earlier download "
                            "failed), so Jittor downloads them again")
        fixes.append(f"get the {dead.dataset} files from " + " or ".join(dead.alternatives)
                     + f", or copy them (e.g. a torchvision {dead.dataset}/raw folder) into the data folder "
                       "and pass download=False")
    if not messages:
        scope = f"in {ctx.project} nor" if ctx.project else "(pass --project DIR to scan your code) in"
        return Finding("datasets", "ok", f"no known-dead dataset URL {scope} Jittor's dataset cache")
    return Finding("datasets", "warning", "; ".join(messages), "; ".join(fixes))
