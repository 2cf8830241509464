"""The torch-side cache shared by checkouts (porter/prove/torchside.py): a second checkout of
the same tree copies a completed torch side instead of running torch again; an output that
names its checkout, or a changed script, runs again."""
from __future__ import annotations

from pathlib import Path

import pytest

from porter.prove import torchside

# A stand-in torch side: counts its runs in a file next to it, writes one result (and, asked to,
# the checkout's path, as a script passing ``--data <its build folder>`` to a later run does).
SCRIPT = """\
import sys
from pathlib import Path
out = Path(sys.argv[sys.argv.index("--out") + 1])
runs = Path(__file__).with_name("runs.txt")
runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
(out / "sub").mkdir(exist_ok=True)
(out / "sub" / "result.txt").write_text("42")
if "--name-checkout" in sys.argv:
    (out / "meta.json").write_text('{"data": "%s"}' % sys.argv[sys.argv.index("--name-checkout") + 1])
"""


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A script, a shared cache, and a function that switches to checkout N (its own build)."""
    if not (torchside.TORCH_VENV / "bin" / "python").exists():
        pytest.skip(".venv-torch is missing (make venvs)")
    script = tmp_path / "side.py"
    script.write_text(SCRIPT)
    monkeypatch.setenv("JTPORT_TORCH_CACHE", str(tmp_path / "shared"))

    def use(n: int) -> Path:
        root = tmp_path / f"checkout{n}"
        monkeypatch.setattr(torchside, "ROOT", root)
        monkeypatch.setattr(torchside, "BUILD", root / "build" / "parity")
        return root

    return script, use, lambda: int((tmp_path / "runs.txt").read_text())


def test_second_checkout_copies_instead_of_running(checkout):
    script, use, runs = checkout
    use(1)
    first = torchside.run_torch(script, "side")
    assert runs() == 1 and (first / "sub" / "result.txt").read_text() == "42"
    use(2)
    second = torchside.run_torch(script, "side")
    assert second != first and (second / "sub" / "result.txt").read_text() == "42"
    assert runs() == 1, "the second checkout ran torch again"
    script.write_text(SCRIPT + "\n# changed\n")
    torchside.run_torch(script, "side")
    assert runs() == 2, "a changed script reused a stale result"


def test_output_naming_its_checkout_is_not_shared(checkout):
    script, use, runs = checkout
    root = use(1)
    torchside.run_torch(script, "side", args=["--name-checkout", str(root / "build")])
    use(2)
    torchside.run_torch(script, "side", args=["--name-checkout", str(root / "build")])
    assert runs() == 2


def test_shared_cache_keeps_the_newest_outputs_per_side(checkout, tmp_path):
    script, use, _ = checkout
    use(1)
    for k in range(torchside.SHARED_KEEP + 2):
        torchside.run_torch(script, "side", args=[f"--variant={k}"])
    kept = sorted((tmp_path / "shared").glob("side-*"))
    assert len(kept) == torchside.SHARED_KEEP


def test_empty_setting_turns_sharing_off(monkeypatch):
    monkeypatch.setenv("JTPORT_TORCH_CACHE", "")
    assert torchside.shared_cache() is None
