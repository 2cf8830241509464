"""The report says how to launch a converted distributed program (``porter/convert/rules/launch.py``):
the process count ``mp.spawn`` asks for, torchrun's environment reads, ``--local_rank``."""
import pytest

from porter import convert_source
from porter.convert.rules.launch import ENV_NOTE

HEAD = "import os\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\n"


def _launch_notes(body: str):
    report = convert_source(HEAD + body, "train.py").report
    return [n for n in report.run_notes if "mpirun -np" in n], report


@pytest.mark.parametrize("body, count", [
    ("mp.spawn(f, args=(4,), nprocs=4, join=True)\n", "4"),
    ("mp.spawn(f, (), 3)\n", "3"),
    ("mp.spawn(f)\n", "1"),                                       # torch's default nprocs
    ("mp.spawn(f, nprocs=n)\n", "N"),                             # not a literal
    ("mp.spawn(f, nprocs=2)\nmp.spawn(g, nprocs=4)\n", "N"),      # the file disagrees with itself
    ("mp.spawn(f, **kw)\n", "N"),
    ("dist.init_process_group('gloo')\n", "N"),                   # torchrun-started: no count in the code
])
def test_launch_line_names_the_spawned_process_count(body, count):
    notes, _ = _launch_notes(body)
    assert len(notes) == 1 and f"mpirun -np {count} python" in notes[0], notes


@pytest.mark.parametrize("read", ['os.environ["LOCAL_RANK"]', "os.environ.get('RANK', 0)",
                                  'os.getenv("WORLD_SIZE")'])
def test_reading_torchruns_environment_gets_a_run_note(read):
    _, report = _launch_notes(f"rank = int({read})\ndist.init_process_group('gloo')\n")
    assert ENV_NOTE in report.run_notes


def test_writing_or_reading_other_variables_gets_no_note():
    _, report = _launch_notes('os.environ["MASTER_ADDR"] = "x"\nhome = os.environ["HOME"]\n'
                              "dist.init_process_group('gloo')\n")
    assert ENV_NOTE not in report.run_notes


def test_local_rank_argument_is_marked():
    result = convert_source(HEAD + "import argparse\np = argparse.ArgumentParser()\n"
                            "p.add_argument('--local-rank', type=int, default=0)\n"
                            "dist.init_process_group('gloo')\n", "train.py")
    [warning] = [w for w in result.report.warnings if w.code == "JT104"]
    assert warning.line == 6 and "LOCAL_RANK" in warning.reason
    assert "# jtport: JT104 --local-rank: mpirun passes no --local-rank" in result.code
