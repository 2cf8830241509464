"""Fuzzing the safe unpickler (issue 20): 5000 seeded cases of random opcode streams and
mutations of real checkpoints (zip and legacy), in a child with an audit hook
(``checkpoint_fuzz_child.py``).  Nothing may execute, nothing may poison a later load, and
every failure must be a ``CheckpointError`` naming the file.  ~2 s of fuzzing plus the child's
Jittor import."""
import json
from pathlib import Path

from checkpoint_craft import run_python_child

CHILD = Path(__file__).with_name("checkpoint_fuzz_child.py")


def test_fuzzed_checkpoints_run_nothing_and_fail_clearly(tmp_path):
    proc = run_python_child([str(CHILD), "0", "5000", str(tmp_path)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["events"] == [], out["events"]
    assert out["unclear"] == [], out["unclear"]
    assert not out["poisoned"]
    counts = out["counts"]
    assert sum(counts.values()) == 5000
    # the fuzz reaches all outcomes: loads, refused globals, malformed input
    assert counts["loaded"] > 50 and counts["ForbiddenGlobalError"] > 100 and counts["CheckpointError"] > 100
