"""Helpers for golden tests: the cases, and which table a golden folder converts with."""
from functools import lru_cache
from pathlib import Path
from typing import List

from porter.mapping import MappingTable, default_table, load_table

GOLDEN = Path(__file__).resolve().parent / "golden"


def golden_cases() -> List[Path]:
    """Every ``tests/golden/<rule>/<case>.in.py``."""
    return sorted(GOLDEN.glob("*/*.in.py"))


@lru_cache(maxsize=None)
def table_for(folder: Path) -> MappingTable:
    """A golden folder may pin its own table (``<folder>/table/*.toml``) so that tests of the
    converter core do not change when the shipped table grows; otherwise the shipped table."""
    pinned = folder / "table"
    return load_table(pinned) if pinned.is_dir() else default_table()


def case_id(path: Path) -> str:
    """``<rule>/<case>`` for a golden input path."""
    return f"{path.parent.name}/{path.name[:-len('.in.py')]}"
