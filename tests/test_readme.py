"""README.md stays true: its before/after example is what the converter really produces, and
its two commands are the Makefile's."""
import re
from pathlib import Path

from porter import convert_source

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def python_block_after(marker: str) -> str:
    """The first ```python block following ``marker`` in README.md."""
    start = README.index(marker)
    m = re.compile(r"```python\n(.*?)```", re.S).search(README, start)
    assert m is not None, f"no python block after {marker!r}"
    return m.group(1)


def test_before_after_example_is_real():
    before = python_block_after("Before:")
    after = python_block_after("After `jtport convert`:")
    assert convert_source(before, "example.py").code == after


def test_two_commands_exist_in_makefile():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("demo", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), target
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    assert first_block.splitlines()[0].startswith("make demo")
    assert first_block.splitlines()[2].startswith("make test")
