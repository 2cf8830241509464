"""Read ``bench/corpus/manifest.toml``: the corpus's projects, each pinned by repository and commit."""
from __future__ import annotations

import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MANIFEST = HERE / "manifest.toml"
_REQUIRED = ("name", "repo", "commit", "year", "domain", "entry")


def load_projects(only=(), path: Path = MANIFEST) -> list:
    """The manifest's projects (all, or those named in ``only``), each checked for the required keys."""
    with open(path, "rb") as fh:
        projects = tomllib.load(fh)["project"]
    names = [p["name"] for p in projects]
    if len(set(names)) != len(names):
        raise ValueError("duplicate project names in the manifest")
    for p in projects:
        missing = [k for k in _REQUIRED if k not in p]
        if missing:
            raise ValueError(f"{p.get('name', '?')}: missing {missing}")
    if only:
        unknown = set(only) - set(names)
        if unknown:
            raise ValueError(f"unknown projects: {sorted(unknown)}")
        projects = [p for p in projects if p["name"] in only]
    return projects
