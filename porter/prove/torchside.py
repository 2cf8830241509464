"""Run torch-side scripts in the separate ``.venv-torch`` and cache what they write.

The two virtualenvs never import each other: a torch-side script writes ``.npz`` files into
an output folder, the Jittor side reads them.  Results are cached under ``build/parity/``
keyed by a hash of the script, the files it declares as inputs (e.g. ``models_ref/``) and
the installed torch version, so an unchanged run does not redo the torch work.  The key names
files by their path inside the checkout, so it is the same in every checkout of the same tree:
a completed output is also published to a cache every checkout on this machine shares
(:func:`shared_cache`), and a new checkout (CI's fresh clone) copies it instead of re-running
torch.  An output that names its own checkout (an absolute path in a file) is not shared.

A test module declares its torch side as a module-level :class:`TorchSide`; the parity
suite's ``conftest.py`` starts every declared torch side of the selected tests in the
background as soon as collection ends (:func:`prefetch`), so the torch work of later suites
overlaps the Jittor work of earlier ones.  A per-output lock makes a test that needs a result
wait for the run already under way instead of starting a second one.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

from porter.prove.processes import run_tracked
from porter.prove.workspace import ROOT, torch_env, torch_pythonpath

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


def _shown(path: Path) -> Path:
    """``path`` relative to the workspace when it is inside it."""
    try:
        return path.relative_to(ROOT)
    except ValueError:
        return path


def _hash_paths(h: "hashlib._Hash", paths: Iterable[Path]) -> None:
    for p in sorted(Path(x) for x in paths):
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            if "__pycache__" in f.parts:
                continue
            h.update(str(_shown(f)).encode())
            h.update(f.read_bytes())


def cache_key(script: Path, deps: Sequence[Path] = (), args: Sequence[str] = ()) -> str:
    """Hash of the script, its dependencies, its arguments and the torch version."""
    h = hashlib.sha256()
    _hash_paths(h, [script, *deps, Path(__file__)])
    h.update("\0".join(args).encode())
    h.update(torch_version().encode())
    return h.hexdigest()[:16]


def shared_cache() -> Optional[Path]:
    """The torch-side results every checkout on this machine shares: ``$JTPORT_TORCH_CACHE``
    (empty: no sharing), else ``$XDG_CACHE_HOME/jtport/torch_side`` (``~/.cache``)."""
    chosen = os.environ.get("JTPORT_TORCH_CACHE")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jtport" / "torch_side"


#: outputs kept per torch side in the shared cache (the newest; older keys are removed)
SHARED_KEEP = 2
#: files above this size are not scanned for a checkout path (arrays, not metadata)
_SCAN_LIMIT = 1 << 20


def _names_checkout(out: Path) -> bool:
    """Whether a file of ``out`` holds the checkout's absolute path (a copy would point back
    into this checkout, which another checkout must not read)."""
    needle = str(ROOT).encode()
    return any(needle in f.read_bytes() for f in out.rglob("*")
               if f.is_file() and f.stat().st_size <= _SCAN_LIMIT)


def _clear(out: Path) -> None:
    for old in out.iterdir():
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink()


def _fetch_shared(name: str, key: str, out: Path) -> bool:
    """Copy the shared output of ``name`` at ``key`` into ``out``; False when there is none."""
    shared = shared_cache()
    entry = shared / f"{name}-{key}" if shared else None
    if entry is None or not (entry / ".key").is_file() or (entry / ".key").read_text() != key:
        return False
    _clear(out)
    shutil.copytree(entry, out, dirs_exist_ok=True)
    return True


def _publish_shared(name: str, key: str, out: Path) -> None:
    """Copy a completed ``out`` into the shared cache (atomically: a copy under way is never
    read), then drop that side's older entries beyond :data:`SHARED_KEEP`."""
    shared = shared_cache()
    if shared is None or _names_checkout(out):
        return
    entry = shared / f"{name}-{key}"
    if entry.exists():
        return
    try:
        shared.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=shared))
    except OSError:
        return
    try:
        shutil.copytree(out, tmp, dirs_exist_ok=True)
        os.rename(tmp, entry)
    except OSError:  # a full disk or a concurrent publisher: this run's own output stands
        shutil.rmtree(tmp, ignore_errors=True)
        return
    entries = sorted(shared.glob(f"{name}-" + "?" * len(key)), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[SHARED_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def output_lock(name: str) -> Iterator[None]:
    """Hold ``build/parity/<name>.lock``: one run (a torch side, a background job) per output
    folder at a time, across threads and processes."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_torch(script: Path, name: str, deps: Sequence[Path] = (), args: Sequence[str] = (),
              timeout: float = 1800) -> Path:
    """Run ``script --out build/parity/<name> [args]`` under .venv-torch unless cached.

    ``deps`` are extra files or folders whose content invalidates the cache (a reference
    model package, say).  Returns the output folder.  The script must write its results
    there; a ``.key`` file marks a completed run.  A run of the same output already under way
    (a :func:`prefetch`, another session) is waited for, then reused.  A completed run of the
    same key in another checkout (:func:`shared_cache`) is copied instead of run again.
    """
    script = Path(script).resolve()
    out = BUILD / name
    key = cache_key(script, [Path(d).resolve() for d in deps], args)
    stamp = out / ".key"
    with output_lock(name):
        if stamp.exists() and stamp.read_text() == key:
            return out
        out.mkdir(parents=True, exist_ok=True)
        if _fetch_shared(name, key, out):
            return out
        _clear(out)
        with torch_pythonpath() as pythonpath:
            env = torch_env(pythonpath)
            env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
            proc = run_tracked([torch_python(), script, "--out", out, *args], ROOT, env, timeout)
        if proc.returncode != 0:
            raise TorchSideError(f"torch side {_shown(script)} failed "
                                 f"(exit {proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
        stamp.write_text(key)
        _publish_shared(name, key, out)
    return out


@dataclass(frozen=True)
class TorchSide:
    """A torch-side script a test module needs: ``run()`` gives its output folder."""

    script: Path
    name: str
    deps: Tuple[Path, ...] = ()

    def run(self) -> Path:
        """The output folder (run now, or the cached / in-flight run)."""
        return run_torch(self.script, self.name, self.deps)


def prefetch(sides: Sequence[TorchSide]) -> Optional[threading.Thread]:
    """Run ``sides`` one after another in a background thread (their errors surface again,
    with their output, when a test calls ``run()``).  Returns the thread, or None when every
    side is cached or the torch virtualenv is missing."""
    if not sides or not (TORCH_VENV / "bin" / "python").exists():
        return None

    def work() -> None:
        for side in sides:
            with contextlib.suppress(Exception):  # the test that needs it reports it
                side.run()

    thread = threading.Thread(target=work, name="torch-side prefetch", daemon=True)
    thread.start()
    return thread


def declared_sides(modules: Iterable[object]) -> List[TorchSide]:
    """The :class:`TorchSide` constants of ``modules``, in order, each once."""
    found: List[TorchSide] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, TorchSide) and value not in found:
                found.append(value)
    return found


if __name__ == "__main__":  # pragma: no cover - manual use: python -m porter.prove.torchside SCRIPT NAME
    print(run_torch(Path(sys.argv[1]), sys.argv[2]))
