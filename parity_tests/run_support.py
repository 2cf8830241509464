"""What the whole-script tests of ``jtport parity --run`` share."""
from porter import convert_path
from porter.prove import run_cmd
from porter.prove.run_compare import Trace


def converted_run(tmp_path, capsys, script, steps=3):
    """Convert ``script``, run it through ``jtport parity --run`` (one spread run); the verdict
    must be MATCH over ``steps`` steps on both sides.  Returns the converted source and torch's trace."""
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
    return (tmp_path / "conv" / "train.py").read_text(), torch
