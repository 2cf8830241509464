"""``jtport parity --run`` on public training scripts from the corpus that no other test uses.

Each project is materialised from the local mirror at its pinned commit (``bench/corpus/fetch.py``;
upstream code is never committed), its data made by the corpus's own recipe
(``bench/corpus/synth.py``), its folder converted by the real converter, and the unmodified entry
script run through ``porter.prove.run_cmd`` (what ``jtport parity --run`` runs) for a few steps.
A project whose repository is not in the mirror skips, saying so.  Minutes of Jittor compilation
on a cold cache: these run under ``make parity`` (``parity_only``).

Measured 2026-11-28, ``--steps 3``: ``07_diabets_logistic.py`` MATCH (worst output rel err 1.4e-7,
torch's own 1.9e-7); ``dynamic_net.py`` MATCH (its ``random.randint`` depth per forward and its
``torch.randn`` data shared; worst output rel err 4.8e-7, torch's own 2.2e-7);
``bigram.py`` MATCH (402 ``torch.randint`` batches, its evaluation's
included, replayed through ``shims.randint``; 1203 module outputs compared, worst rel err 8.3e-7;
step 3's loss 2.4e-6 off within a bound of 3.9e-6).  ``pygcn`` is not
here yet: its ``train.py`` imports its own package (``from pygcn.utils import ...``), which
``--project-root ..`` now serves (tested on a package of our own in ``test_run_parity.py``), but
it also needs scipy, which neither virtualenv holds.
"""
import shutil
import sys
from pathlib import Path

import pytest

from porter import convert_path
from porter.prove import run_cmd
from porter.prove.run_compare import Trace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
from fetch import git_dir, materialise  # noqa: E402
from manifest import load_projects  # noqa: E402
import synth  # noqa: E402

MIRROR = Path("/work/.mirror")
STEPS = 3

#: project -> (the entry script's folder in the project, the script, its arguments): the
#: manifest's entry, with arguments that keep a step small where the script takes any
CASES = {
    "PyTorchZeroToAll-diabetes": ("", "07_diabets_logistic.py", []),
    "jcjohnson-dynamic-net": ("nn", "dynamic_net.py", []),
    "ng-video-lecture-bigram": ("", "bigram.py", []),
}


def _project(name: str, base: Path):
    """``(original script, converted script)`` of ``name`` under ``base``, data made on both sides."""
    proj = load_projects([name])[0]
    gdir = git_dir(MIRROR, proj["repo"])
    if gdir is None:
        pytest.skip(f"{proj['repo']} is not in {MIRROR} (bench/corpus/fetch.py)")
    src, conv = base / "src", base / "jt"
    materialise(gdir, proj["commit"], src)
    folder, script, _ = CASES[name]
    cwd = proj["entry"].get("cwd", ".")
    synth.make_data(src / cwd, proj.get("data", []), sys.executable, {})
    report = convert_path(src / folder if folder else src, conv / folder if folder else conv)
    assert not report.errors, report.errors
    for path in src.rglob("*"):  # the data and every file the converter did not write
        target = conv / path.relative_to(src)
        if path.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return src / cwd / script, conv / cwd / script


@pytest.mark.parity_only
@pytest.mark.parametrize("name", sorted(CASES))
def test_public_script_matches(name, tmp_path, capsys):
    original, converted = _project(name, tmp_path / name)
    rc = run_cmd.main([str(original), str(converted), "--steps", str(STEPS), "--out", str(tmp_path / "out"),
                       "--", *CASES[name][2]])
    text = capsys.readouterr().out
    assert rc == 0, text
    torch = Trace.load(tmp_path / "out" / "torch")
    assert torch.meta["roots"] and len(torch.meta["losses"]) >= STEPS and torch.group("act")
    assert "verdict: MATCH" in text
