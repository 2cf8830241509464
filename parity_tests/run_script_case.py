"""One script of a test through ``jtport parity --run``: written, converted, run, judged."""
from pathlib import Path

from porter import convert_path
from porter.prove import run_cmd
from porter.prove.run_compare import Trace


def run_matches(tmp_path: Path, capsys, script: str, steps: int = 3) -> Trace:
    """``script`` as ``orig/train.py``, converted to ``conv/``, run through ``parity --run`` for
    ``steps`` steps with one spread run; asserts the verdict MATCH and that both sides recorded
    one loss a step. Returns torch's trace."""
    (tmp_path / "orig").mkdir()
    (tmp_path / "orig" / "train.py").write_text(script)
    report = convert_path(tmp_path / "orig", tmp_path / "conv")
    assert not report.errors, report.errors
    rc = run_cmd.main([str(tmp_path / "orig" / "train.py"), str(tmp_path / "conv" / "train.py"), "--steps",
                       str(steps), "--spread-runs", "1", "--out", str(tmp_path / "out")])
    text = capsys.readouterr().out
    assert rc == 0 and "verdict: MATCH" in text, text
    torch = Trace.load(tmp_path / "out" / "torch")
    assert len(Trace.load(tmp_path / "out" / "port").meta["losses"]) == steps == len(torch.meta["losses"])
    return torch
