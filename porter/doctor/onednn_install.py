"""``jtport install-onednn``: put oneDNN 2.2 from PyPI where Jittor 1.3.11 looks for it.

Jittor downloads oneDNN from its own server on first import (offline, the import fails, so
jtport used to switch oneDNN off, and Jittor's own CPU convolution is 10-50x slower than
torch's).  The same oneDNN build is on PyPI as two wheels (Apache-2.0)::

    onednn-cpu-gomp==2021.2.0        lib/libdnnl.so.2.2 (the runtime)
    onednn-devel-cpu-gomp==2021.2.0  include/           (the headers Jittor's ops compile against)

``pip install``/``pip --target`` would drop their ``*.data/data`` files, so the wheels are
downloaded with pip (hash-pinned) and unpacked here: ``include/``, ``lib/libdnnl.so.2.2`` and
the names Jittor links (``libmkldnn.so``) and the loader looks for (``libdnnl.so.2``) as
symlinks to it, into ``<jittor home>/.cache/jittor/mkl/dnnl_lnx_2.2.0_cpu_gomp`` (the folder
``porter/machine/onednn.py`` checks).  The folder appears in one rename, so a Jittor starting meanwhile
never sees half of it.  Linux x86_64 only (the wheels' platform).

Usage::

    jtport install-onednn [--wheels DIR] [--jittor-home DIR] [--force]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from typing import Dict, List, Optional, Sequence

from porter.machine import env, onednn

# wheel name prefix -> (pip requirement, sha256 of the manylinux1_x86_64 wheel on PyPI)
WHEELS: Dict[str, tuple] = {
    "onednn_cpu_gomp-": ("onednn-cpu-gomp==2021.2.0",
                         "c4be17dc0f1066b2dc20aca96564339b8938bd1084337b068c501987c1a64256"),
    "onednn_devel_cpu_gomp-": ("onednn-devel-cpu-gomp==2021.2.0",
                               "80443ea8a45289bf79f6189a18ef4d2285b314793a5c212480f2dee8077a895b"),
}
RUNTIME = "libdnnl.so.2.2"
# the names Jittor links against / the loader resolves, all pointing at RUNTIME
LIB_LINKS = ("libdnnl.so.2", "libdnnl.so", "libmkldnn.so", "libmkldnn.so.2")
SUPPORTED = ("Linux", "x86_64")


class InstallError(RuntimeError):
    """oneDNN could not be installed; the message says why and what to do."""


def download_wheels(dest: str, python: str = sys.executable) -> List[str]:
    """Download both wheels into ``dest`` with ``python -m pip`` (hashes checked); return paths."""
    requirements = os.path.join(dest, "onednn-requirements.txt")
    with open(requirements, "w", encoding="utf8") as f:
        for requirement, sha in WHEELS.values():
            f.write(f"{requirement} --hash=sha256:{sha}\n")
    cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "--platform", "manylinux1_x86_64", "--require-hashes", "-r", requirements, "-d", dest]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise InstallError("pip could not download the oneDNN wheels from your package index:\n"
                           + done.stderr.strip()[-2000:]
                           + "\nDownload them elsewhere (pip download --no-deps "
                           + " ".join(r for r, _ in WHEELS.values())
                           + ") and pass their folder with --wheels DIR.")
    return find_wheels(dest)


def find_wheels(folder: str) -> List[str]:
    """The two oneDNN wheels in ``folder``, checked against their pinned sha256."""
    found = []
    for prefix, (requirement, sha) in WHEELS.items():
        names = sorted(n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".whl"))
        if not names:
            raise InstallError(f"{folder} has no {requirement} wheel ({prefix}*.whl)")
        path = os.path.join(folder, names[-1])
        actual = _sha256(path)
        if actual != sha:
            raise InstallError(f"{path}: sha256 {actual} is not that of {requirement} on PyPI ({sha})")
        found.append(path)
    return found


def unpack(wheels: Sequence[str], folder: str) -> None:
    """Write ``include/``, ``lib/`` and the licence of the wheels' data files into ``folder``."""
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as z:
            for info in z.infolist():
                rel = _data_path(info.filename)
                if rel is None or info.is_dir():
                    continue
                if rel.startswith("lib/"):
                    # the runtime wheel holds six copies of one 51 MB library: keep one, link the rest
                    if os.path.basename(rel) != RUNTIME:
                        continue
                elif not (rel.startswith("include/") or rel.startswith("share/doc/")):
                    continue
                target = os.path.join(folder, *rel.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
    lib = os.path.join(folder, "lib")
    if not os.path.isfile(os.path.join(lib, RUNTIME)):
        raise InstallError(f"the runtime wheel holds no lib/{RUNTIME}")
    for name in LIB_LINKS:
        os.symlink(RUNTIME, os.path.join(lib, name))


def _data_path(name: str) -> Optional[str]:
    """``x-1.0.data/data/include/a.h`` -> ``include/a.h``; None outside the data scheme."""
    parts = name.split("/")
    if len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "data":
        return "/".join(parts[2:])
    return None


def install(jittor_cache: str, wheels_dir: Optional[str] = None, force: bool = False,
            log=print) -> str:
    """Install oneDNN into ``<jittor_cache>/mkl``; return the folder.  Idempotent.

    An existing usable install is left alone; an unusable one is an error unless ``force``,
    which moves it aside (renamed, never deleted: other processes may use the cache).
    """
    here = (platform.system(), platform.machine())
    if here != SUPPORTED:
        raise InstallError(f"the oneDNN wheels on PyPI are for {'/'.join(SUPPORTED)}, this is "
                           f"{'/'.join(here)}: let Jittor download its own build, or keep use_mkl=0")
    current = onednn.status(jittor_cache)
    if current.usable:
        log(f"oneDNN already installed: {current.folder}")
        return current.folder
    name = onednn.platform_dir_name()
    root = onednn.mkl_dir(jittor_cache)
    final = os.path.join(root, name)
    if os.path.exists(final):
        if not force:
            raise InstallError(f"{current.reason}. Rerun with --force to move it aside "
                               f"and install afresh.")
        aside = os.path.join(root, f".{name}.replaced-{os.getpid()}")
        os.rename(final, aside)
        log(f"moved the unusable {final} to {aside}")
    os.makedirs(root, exist_ok=True)
    # staging names must not start with "dnnl": Jittor takes any dnnl* folder
    staging = tempfile.mkdtemp(prefix=".jtport-onednn-", dir=root)
    try:
        if wheels_dir:
            wheels = find_wheels(wheels_dir)
        else:
            log("downloading onednn-cpu-gomp and onednn-devel-cpu-gomp 2021.2.0 (oneDNN 2.2, 65 MB)")
            wheels = download_wheels(staging)
        tree = os.path.join(staging, name)
        unpack(wheels, tree)
        os.rename(tree, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    after = onednn.status(jittor_cache)
    if not after.usable:
        raise InstallError(f"installed into {final} but it is not usable: {after.reason}")
    log(f"oneDNN installed: {final}")
    return final


def _sha256(path: str) -> str:
    with open(path, "rb") as f:  # 65 MB at most: read whole
        return hashlib.sha256(f.read()).hexdigest()


def build_parser() -> argparse.ArgumentParser:
    """The ``jtport install-onednn`` argument parser."""
    p = argparse.ArgumentParser(
        prog="jtport install-onednn",
        description="Install oneDNN 2.2 (the build Jittor 1.3.11 uses) from PyPI's onednn-cpu-gomp "
                    "wheels into Jittor's cache, so Jittor runs convolutions and matmuls on it "
                    "without downloading anything. jtport then turns use_mkl on by itself.")
    p.add_argument("--wheels", metavar="DIR", help="take the two wheels from DIR instead of downloading")
    p.add_argument("--jittor-home", metavar="DIR",
                   help="Jittor's home (default: as Jittor decides: $JITTOR_HOME, its config.json, $HOME)")
    p.add_argument("--force", action="store_true", help="move an unusable install aside and reinstall")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``jtport install-onednn``; 0 when oneDNN is in place, 1 otherwise."""
    args = build_parser().parse_args(argv)
    environ = dict(os.environ)
    if args.jittor_home:
        environ["JITTOR_HOME"] = args.jittor_home
    here = (platform.system(), platform.machine())
    if here != SUPPORTED:
        print(f"jtport install-onednn: nothing to do on {'/'.join(here)}: the oneDNN wheels on PyPI "
              f"are for {'/'.join(SUPPORTED)}; jtport keeps use_mkl=0 unless Jittor's own oneDNN "
              "is in its cache", file=sys.stderr)
        return 0
    try:
        install(env.jittor_cache_dir(environ), args.wheels, args.force)
    except (InstallError, OSError) as e:
        print(f"jtport install-onednn: {e}", file=sys.stderr)
        return 1
    return 0
