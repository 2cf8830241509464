"""Torch side of ``parity_tests/test_scripts_parity.py``: run every whole training script of
``parity_tests/scripts/`` as its user would, under ``.venv-torch``.

Per script ``NAME``: ``NAME.init.pt`` (the initial weights the script saved, since the file was
absent), ``NAME.json`` (its logged losses), ``NAME.ckpt.pt`` (its final checkpoint); and
``cases.json``: the scripts run and the command-line arguments each got, which the Jittor side
passes unchanged to the converted scripts.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

#: extra arguments per script (the same on both sides).  bn_dropout_mlp: dropout masks come
#: from each framework's own random generator, so only p=0 can match step for step.
EXTRA_ARGS = {"bn_dropout_mlp": ["--dropout", "0"]}


def script_args(out: Path, name: str) -> list:
    """The arguments of one script's run, its files in ``out``."""
    return ["--init", str(out / f"{name}.init.pt"), "--log", str(out / f"{name}.json"),
            "--ckpt", str(out / f"{name}.ckpt.pt"), *EXTRA_ARGS.get(name, [])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))
    for name in names:
        proc = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), *script_args(out, name)],
                              cwd=out, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"{name}.py failed under torch:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
        if not (out / f"{name}.init.pt").exists():
            sys.exit(f"{name}.py wrote no initial weights")
    (out / "cases.json").write_text(json.dumps({n: EXTRA_ARGS.get(n, []) for n in names}, indent=1))


if __name__ == "__main__":
    main()
