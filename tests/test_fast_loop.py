"""The fast loop's exclusions (``SLOW`` in the root conftest.py) name tests that exist: a renamed
or removed test must not leave a stale entry, nor a new slow test hide behind one."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _slow_table() -> dict:
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SLOW


def test_every_slow_entry_names_an_existing_module_and_test():
    for key, why in _slow_table().items():
        path, _, name = key.partition("::")
        assert (ROOT / path).is_file(), f"SLOW names {path}, which does not exist"
        if name:
            assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M), \
                f"SLOW names {key}, which {path} does not define"
        assert why, f"SLOW's entry {key} gives no reason"


def test_slow_entries_are_not_the_whole_of_a_folder():
    folders = {key.partition("::")[0].rsplit("/", 1)[0] for key in _slow_table()}
    for folder in folders:
        modules = {str(p.relative_to(ROOT)) for p in (ROOT / folder).glob("test_*.py")}
        assert modules - set(_slow_table()), f"the fast loop runs nothing from {folder}"
