"""Run torch-side scripts in the separate ``.venv-torch`` and cache what they write.

The two virtualenvs never import each other: a torch-side script writes ``.npz`` files into
an output folder, the Jittor side reads them.  Results are cached under ``build/parity/``
keyed by a hash of the script, the files it declares as inputs (e.g. ``models_ref/``) and
the installed torch version, so an unchanged run does not redo the torch work.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Sequence

ROOT = Path(__file__).resolve().parents[2]
TORCH_VENV = ROOT / ".venv-torch"
BUILD = ROOT / "build" / "parity"


class TorchSideError(RuntimeError):
    """A torch-side script failed; the message carries its output."""


def torch_python() -> Path:
    """The interpreter of ``.venv-torch`` (``make`` builds it)."""
    py = TORCH_VENV / "bin" / "python"
    if not py.exists():
        raise TorchSideError(f"{py} is missing: run `make .venv-torch/.installed` (or `make test`)")
    return py


def torch_version() -> str:
    """The torch version installed in ``.venv-torch``, read from its metadata (no import)."""
    found = sorted(TORCH_VENV.glob("lib/python*/site-packages/torch-*.dist-info"))
    return found[0].name[len("torch-"):-len(".dist-info")] if found else "missing"


def _hash_paths(h: "hashlib._Hash", paths: Iterable[Path]) -> None:
    for p in sorted(Path(x) for x in paths):
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            if "__pycache__" in f.parts:
                continue
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())


def cache_key(script: Path, deps: Sequence[Path] = (), args: Sequence[str] = ()) -> str:
    """Hash of the script, its dependencies, its arguments and the torch version."""
    h = hashlib.sha256()
    _hash_paths(h, [script, *deps, Path(__file__)])
    h.update("\0".join(args).encode())
    h.update(torch_version().encode())
    return h.hexdigest()[:16]


def run_torch(script: Path, name: str, deps: Sequence[Path] = (), args: Sequence[str] = (),
              timeout: float = 1800) -> Path:
    """Run ``script --out build/parity/<name> [args]`` under .venv-torch unless cached.

    ``deps`` are extra files or folders whose content invalidates the cache (a reference
    model package, say).  Returns the output folder.  The script must write its results
    there; a ``.key`` file marks a completed run.
    """
    script = Path(script).resolve()
    out = BUILD / name
    key = cache_key(script, [Path(d).resolve() for d in deps], args)
    stamp = out / ".key"
    if stamp.exists() and stamp.read_text() == key:
        return out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.is_file():
            old.unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONHASHSEED"] = "0"
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    proc = subprocess.run([str(torch_python()), str(script), "--out", str(out), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise TorchSideError(f"torch side {script.relative_to(ROOT)} failed "
                             f"(exit {proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    stamp.write_text(key)
    return out


if __name__ == "__main__":  # pragma: no cover - manual use: python -m parity_tests.harness.torchside SCRIPT NAME
    print(run_torch(Path(sys.argv[1]), sys.argv[2]))
