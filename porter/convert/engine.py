"""Convert a file or a directory tree: walk, convert in parallel, write, collect one report."""
from __future__ import annotations

import ctypes
import fnmatch
import io
import os
import shutil
import signal
import tempfile
import threading
import time
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .pipeline import ConvertResult, convert_source
from .report import FileReport, Finding, Report
from .star_exports import apply_prelude, star_preludes


class ConvertError(Exception):
    """A usage or I/O problem that stops the whole run (the CLI exits 2)."""


@dataclass
class _Job:
    src: Path
    rel: str
    #: torch imports to append to star-import lines (:mod:`porter.convert.star_exports`)
    prelude: Optional[Dict[int, str]] = None


def decode_source(data: bytes, path: str) -> Tuple[Optional[str], Optional[str], Optional[Finding]]:
    """(text, encoding, error): decode a Python file by its PEP 263 declaration (UTF-8 default)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        return None, None, Finding(path, getattr(e, "lineno", 1) or 1, 1, "", "JT900", f"encoding: {e}")
    try:
        text = data.decode("utf-8-sig" if encoding == "utf-8-sig" else encoding)
    except (UnicodeDecodeError, LookupError) as e:
        line = data[: getattr(e, "start", 0)].count(b"\n") + 1
        return None, None, Finding(path, line, 1, "", "JT900", f"not valid {encoding}: {e}")
    return text, encoding, None


def convert_file(src: Path, rel: str, prelude: Optional[Dict[int, str]] = None) -> Tuple[FileReport, Optional[bytes]]:
    """Convert one file; returns its report and the new bytes (None when unchanged/failed).
    ``prelude``: torch imports its star imports of the tree's own modules stand for."""
    try:
        data = src.read_bytes()
    except OSError as e:
        report = FileReport(rel)
        report.error = Finding(rel, 0, 0, "", "JT900", f"cannot read: {e.strerror or e}")
        return report, None
    text, encoding, error = decode_source(data, rel)
    if error is not None:
        report = FileReport(rel)
        report.error = error
        return report, None
    if prelude:
        text = apply_prelude(text, prelude)  # type: ignore[arg-type]
    result: ConvertResult = convert_source(text, rel)  # type: ignore[arg-type]
    if not result.changed:
        return result.report, None
    out = result.code.encode(encoding or "utf-8")
    if encoding == "utf-8-sig":
        out = b"\xef\xbb\xbf" + result.code.encode("utf-8")
    return result.report, out


def _convert_job(job: _Job) -> Tuple[str, FileReport, Optional[bytes]]:
    report, data = convert_file(job.src, job.rel, job.prelude)
    return job.rel, report, data


TMP_SUFFIX = ".jtport-tmp"


def atomic_write(path: Path, data: bytes, mode_from: Optional[Path] = None, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: never a half file.

    A symlink is written through (the link stays a link).  A file with other hard links is
    rewritten in its own inode once the new bytes are written beside it, so the links keep
    sharing it.  ``durable`` also forces the bytes to disk (``fsync``) before they replace
    anything, so that even a power loss leaves the old file or the new one: needed where the
    file is the user's only copy (``--in-place``).  An output file is derived from its source
    and rewritten by the next run, and an fsync per file cost ~4 ms here (a fifth of a large
    tree's conversion time).
    """
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        if mode_from is not None and mode_from.exists():
            shutil.copymode(mode_from, tmp)
        if path.exists() and path.stat().st_nlink > 1:
            with open(path, "r+b") as f:
                f.write(data)
                f.truncate()
                f.flush()
                if durable:
                    os.fsync(f.fileno())
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def remove_stale_temporaries(root: Path, only: Optional[str] = None) -> List[str]:
    """Delete the ``.<name>.*.jtport-tmp`` files an interrupted (``kill -9``) earlier run left
    under ``root`` (for the file ``only``, when given); returns notes naming them."""
    notes = []
    prefix = f".{only}." if only else "."
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if only:
            dirnames.clear()
        for name in filenames:
            if name.startswith(prefix) and name.endswith(TMP_SUFFIX):
                p = Path(dirpath) / name
                p.unlink()
                notes.append(f"{p.relative_to(root).as_posix()}: removed a temporary file left "
                             "by an interrupted jtport run")
    return notes


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    parts = rel.split("/")
    return any(fnmatch.fnmatch(rel, p) or any(fnmatch.fnmatch(part, p) for part in parts) for p in patterns)


def walk(src: Path, exclude: Sequence[str] = ()) -> Tuple[List[_Job], List[_Job], List[str]]:
    """(python files, other files, skipped notes) under ``src``; symlinks are never followed
    out of ``src``."""
    root = src.resolve()
    py: List[_Job] = []
    other: List[_Job] = []
    skipped: List[str] = []
    for dirpath, dirnames, filenames in os.walk(src, followlinks=False):
        d = Path(dirpath)
        rel_dir = d.relative_to(src).as_posix()
        dirnames[:] = sorted(n for n in dirnames if not _excluded(_rel(rel_dir, n), exclude))
        for link in [n for n in dirnames if (d / n).is_symlink()]:
            dirnames.remove(link)
            skipped.append(f"{_rel(rel_dir, link)}: symlinked directory not followed")
        for name in sorted(filenames):
            rel = _rel(rel_dir, name)
            path = d / name
            if _excluded(rel, exclude):
                continue
            if path.is_symlink():
                target = path.resolve()
                if not target.is_file() or root not in target.parents:
                    skipped.append(f"{rel}: symlink pointing outside the source tree, not followed")
                    continue
            (py if name.endswith(".py") else other).append(_Job(path, rel))
    return py, other, skipped


def _add_preludes(py: List[_Job], root: str) -> None:
    """Give each file that star-imports a module of the tree binding torch names its prelude."""
    sources = []
    for job in py:
        try:
            sources.append((job.rel, job.src.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue  # reported when the file itself is converted
    preludes = star_preludes(sources, root)
    for job in py:
        job.prelude = preludes.get(job.rel)


def _rel(rel_dir: str, name: str) -> str:
    return name if rel_dir in ("", ".") else f"{rel_dir}/{name}"


def default_output(src: Path) -> Path:
    """``proj/`` -> ``proj_jittor/`` beside it; ``x.py`` -> ``x_jittor.py``."""
    src = src.resolve()
    if src.is_dir():
        return src.with_name(src.name + "_jittor")
    return src.with_name(src.stem + "_jittor" + src.suffix)


# complexity: file or directory, in-place or out-dir, jobs and write/overwrite modes interact here
def convert_path(src, out=None, *, in_place: bool = False, exclude: Sequence[str] = (),  # noqa: C901
                 jobs: Optional[int] = None, write: bool = True, overwrite: bool = False,
                 progress: Optional[Callable[[int, int], None]] = None,
                 on_result: Optional[Callable[[Path, FileReport, Optional[bytes]], None]] = None) -> Report:
    """Convert a file or directory ``src``.

    ``out`` defaults to a sibling ``<name>_jittor``; ``in_place`` rewrites sources atomically
    instead. An existing output file, or a non-empty output directory, is replaced only with
    ``overwrite=True`` (and a read-only file never).
    ``write=False`` converts without writing (for ``--diff``/``--check``);
    ``on_result(src_file, report, new_bytes)`` sees every file. Raises :class:`ConvertError`
    for usage/I-O problems (missing source, output inside the source or onto it, existing
    output without ``overwrite``, ...), before anything is written.
    """
    src = Path(src)
    if not src.exists():
        raise ConvertError(f"{src}: no such file or directory")
    if in_place and out is not None:
        raise ConvertError("give either an output path or --in-place, not both")
    out_path = None if in_place else Path(out) if out is not None else default_output(src)
    if src.is_dir():
        if out_path is not None:
            o, s = out_path.resolve(), src.resolve()
            if o == s or s in o.parents:
                raise ConvertError(f"{out_path}: the output may not lie inside the source tree {src}")
            if o.exists() and not o.is_dir():
                raise ConvertError(f"{out_path}: exists and is not a directory")
        py, other, skipped = walk(src, exclude)
    else:
        if not src.name.endswith(".py"):
            raise ConvertError(f"{src}: not a Python file")
        if out_path is not None and _same_file(src, out_path):
            raise ConvertError(f"{out_path}: is the source file itself; use --in-place to rewrite it")
        if out_path is not None and out_path.is_dir():
            raise ConvertError(f"{out_path}: is a directory; give an output file name")
        py, other, skipped = [_Job(src, src.name)], [], []
    if write and out_path is not None:
        _check_output(out_path, src.is_dir(), overwrite)
    if write and in_place:
        stale = remove_stale_temporaries(src) if src.is_dir() else \
            remove_stale_temporaries(src.parent, only=src.name)
        skipped = stale + skipped
    if src.is_dir():
        _add_preludes(py, src.name)
    report = Report()
    results = _run(py, jobs, progress)
    for job, (rel, file_report, data) in zip(py, results):
        report.files.append(file_report)
        if on_result is not None:
            on_result(job.src, file_report, data)
        if not write:
            continue
        if in_place:
            if data is not None:
                atomic_write(job.src, data, mode_from=job.src)
        else:
            target = out_path if not src.is_dir() else out_path / rel  # type: ignore[operator]
            if data is None:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(job.src, target)
            else:
                atomic_write(target, data, mode_from=job.src, durable=False)  # derived: no fsync
    if write and not in_place:
        for job in other:
            target = out_path / job.rel  # type: ignore[operator]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(job.src, target)
    if skipped and report.files:
        report.files[0].notes.extend(skipped)
    return report


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _check_output(out: Path, tree: bool, overwrite: bool) -> None:
    """Refuse to replace what is already at ``out`` unless asked to; never a read-only file, and
    never through a symbolic link (one in an output could point at a source file)."""
    links = ([p for p in out.rglob("*") if p.is_symlink()] if tree and out.is_dir()
             else [out] if out.is_symlink() else [])
    if links:
        raise ConvertError(f"{links[0]}: is a symbolic link (to {os.readlink(links[0])}); jtport does "
                           "not write through links in an output: remove it or choose another output"
                           + _more(links))
    if not out.exists():
        return
    existing = [p for p in out.rglob("*") if p.is_file()] if tree else [out]
    if not existing:
        return
    if not overwrite:
        what = f"is not empty ({len(existing)} file(s))" if tree else "exists"
        raise ConvertError(f"{out}: {what}; pass --overwrite to replace its files, or choose "
                           "another output")
    locked = [p for p in existing if _read_only(p)]
    if locked:
        raise ConvertError(f"{locked[0]}: is read-only; not replacing it" + _more(locked))


def _read_only(path: Path) -> bool:
    """No write permission bit set, or no write access: root's ``os.access`` is always true, and
    a read-only mode is the owner's word that the file must not change."""
    return not path.stat().st_mode & 0o222 or not os.access(path, os.W_OK)


def _more(paths: List[Path]) -> str:
    return f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""


def _die_with_parent(parent: int) -> None:
    """Pool-worker initializer: end this worker when the converting process dies, even by
    ``kill -9`` (the worker would otherwise wait on its task queue forever, reparented)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: Linux
    except (OSError, AttributeError):
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1)
            os._exit(1)
        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _run(py: List[_Job], jobs: Optional[int], progress) -> List[Tuple[str, FileReport, Optional[bytes]]]:
    jobs = jobs or os.cpu_count() or 1
    total = len(py)
    results = []
    if jobs <= 1 or total < 4:
        for i, job in enumerate(py, 1):
            results.append(_convert_job(job))
            if progress:
                progress(i, total)
        return results
    chunk = max(1, min(32, total // (jobs * 4) or 1))
    with ProcessPoolExecutor(max_workers=jobs, initializer=_die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        for i, r in enumerate(pool.map(_convert_job, py, chunksize=chunk), 1):
            results.append(r)
            if progress:
                progress(i, total)
    return results
