"""Materialise the corpus's pinned projects from a local mirror folder (no network).

Usage: ``python bench/corpus/fetch.py [--mirror DIR] [--out DIR] [--only NAME ...]``

``--mirror`` (or ``$JTPORT_CORPUS_MIRROR``, default ``/work/.mirror``) holds one git directory per
repository as the search tool's ``fetch`` leaves them: ``<owner>+<name>/repo`` (bare) or
``<owner>+<name>/repo/.git``. For each project in ``bench/corpus/manifest.toml`` the pinned
commit's tree is written to ``<out>/<name>/src`` (default ``build/corpus``), blob by blob: blobs the
mirror lacks (large data files a snapshot leaves out) are skipped and counted, since every project
reads only the synthetic data the bench makes. Upstream code is never committed (licences).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from manifest import MANIFEST, ROOT, load_projects  # noqa: E402


def git_dir(mirror: Path, repo: str) -> Path | None:
    """The git directory for ``owner/name`` under ``mirror``, or None when it is not there."""
    base = mirror / repo.replace("/", "+") / "repo"
    for cand in (base / ".git", base):
        if (cand / "objects").is_dir():
            return cand
    return None


def _tree(gdir: Path, commit: str) -> list:
    """(mode, sha, path) for every blob of ``commit``."""
    out = subprocess.run(["git", f"--git-dir={gdir}", "ls-tree", "-r", "-z", commit], check=True,
                         capture_output=True).stdout.decode()
    rows = []
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob":
            rows.append((mode, sha, path))
    return rows


def materialise(gdir: Path, commit: str, dest: Path) -> tuple:
    """Write ``commit``'s files into ``dest`` (replaced); return (written, missing) counts."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    rows = _tree(gdir, commit)
    proc = subprocess.Popen(["git", f"--git-dir={gdir}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    written = missing = 0
    for mode, sha, path in rows:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            continue  # symbolic links are not followed into or out of the tree
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)
        written += 1
    proc.stdin.close()
    proc.wait()
    return written, missing


def install_deps(out: Path) -> None:
    """Install the manifest's ``deps`` (without their dependencies: numpy stays each venv's own) per venv."""
    with open(MANIFEST, "rb") as fh:
        deps = tomllib.load(fh).get("deps", [])
    for side, venv in (("torch", ".venv-torch"), ("jittor", ".venv")):
        subprocess.run([str(ROOT / venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                        "--target", str(out / "_deps" / side), *deps], check=True)


def main(argv=None) -> int:
    """Fetch every selected project; exit 1 if one's repository or commit is not in the mirror."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=os.environ.get("JTPORT_CORPUS_MIRROR", "/work/.mirror"))
    ap.add_argument("--out", default=str(ROOT / "build" / "corpus"))
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--deps", action="store_true",
                    help="also pip-install the manifest's extra packages into <out>/_deps/{torch,jittor}")
    args = ap.parse_args(argv)
    if args.deps:
        install_deps(Path(args.out))
    bad = 0
    for proj in load_projects(args.only):
        gdir = git_dir(Path(args.mirror), proj["repo"])
        if gdir is None:
            print(f"{proj['name']}: {proj['repo']} not in {args.mirror}")
            bad += 1
            continue
        try:
            written, missing = materialise(gdir, proj["commit"], Path(args.out) / proj["name"] / "src")
        except subprocess.CalledProcessError:
            print(f"{proj['name']}: commit {proj['commit']} not in {gdir}")
            bad += 1
            continue
        print(f"{proj['name']}: {written} files" + (f" ({missing} large blobs absent)" if missing else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
