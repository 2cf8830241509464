"""Convert cloned torch repositories and say how far their converted code gets under Jittor.

Usage: ``python bench/bench_upstream.py CLONES_DIR [--only NAME ...] [--timeout 120] [--requirements DIR]``

``--requirements DIR``: a folder holding the repositories' own requirements (``pip install
--target DIR -r requirements.txt``, without torch), put on the children's ``PYTHONPATH`` after
jtport's.

For each repository folder in ``CLONES_DIR`` (e.g. clones of NVlabs/stylegan2-ada-pytorch,
diyiiyiii/MCCNet, imlixinyang/HiSD, clovaai/stargan-v2, Totoro97/NeuS): convert it with
``jtport convert`` into a temporary folder, convert the result again (idempotence: files that
change on the second pass), and import every converted module that used torch, each in its
own child process with the repository's root on ``sys.path`` (as the repository's own scripts
run), in a clean environment (PATH, HOME and PYTHONPATH only: none of the Jittor settings
``make`` exports) and with nothing imported first, so it measures what a user gets.  Prints
per repository: torch API uses converted / found, modules importing / modules that used
torch, files not idempotent, and the first error line of each module that did not import.
Nothing is written outside a temporary folder; the clones are only read.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from porter import convert_path  # noqa: E402

_IMPORT = """
import sys, importlib
sys.path.insert(0, {root!r})
try:
    importlib.import_module({module!r})
except BaseException as e:
    print("IMPORT-FAILED", type(e).__name__ + ": " + str(e).splitlines()[0] if str(e) else type(e).__name__)
    sys.exit(1)
"""


def _modules(report, out: Path):
    """Dotted module names of the converted files that used torch."""
    for f in report.files:
        if f.found and f.path.endswith(".py"):
            rel = Path(f.path)
            parts = rel.with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(p.isidentifier() for p in parts):
                yield ".".join(parts), out / rel


def _changed_on_second_pass(out: Path, tmp: Path) -> list:
    again = tmp / "again"
    convert_path(out, again, jobs=1)
    changed = []
    for path in sorted(out.rglob("*.py")):
        rel = path.relative_to(out)
        if (again / rel).read_bytes() != path.read_bytes():
            changed.append(str(rel))
    return changed


def measure(repo: Path, timeout: float, requirements: str = "") -> dict:
    """Conversion rate, importing modules and idempotence of one repository."""
    with tempfile.TemporaryDirectory(prefix=f"jtport-{repo.name}-") as t:
        tmp = Path(t)
        out = tmp / repo.name
        report = convert_path(repo, out, jobs=1)
        failures = {}
        modules = list(_modules(report, out))
        # as a user runs it: a plain shell (no nvcc_path/use_mkl from the Makefile), nothing
        # imported before the module (its own ``import shims`` must apply Jittor's settings)
        env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"],
               "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), requirements) if p)}
        for name, _ in modules:
            code = _IMPORT.format(root=str(out), module=name)
            try:
                proc = subprocess.run([sys.executable, "-c", code], cwd=out, env=env, text=True,
                                      capture_output=True, timeout=timeout)
                ok = proc.returncode == 0
                why = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORT-FAILED")),
                           (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1])
            except subprocess.TimeoutExpired:
                ok, why = False, f"timed out after {timeout:.0f} s"
            if not ok:
                failures[name] = why.replace("IMPORT-FAILED ", "")
        changed = _changed_on_second_pass(out, tmp)
        shutil.rmtree(tmp / "again", ignore_errors=True)
    return {"found": report.found, "converted": report.converted, "unsupported": len(report.unsupported),
            "modules": len(modules), "importing": len(modules) - len(failures), "failures": failures,
            "not_idempotent": changed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clones", type=Path)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--requirements", default="", help="folder with the repositories' own requirements")
    args = ap.parse_args()
    repos = sorted(p for p in args.clones.iterdir() if p.is_dir() and (args.only is None or p.name in args.only))
    print(f"{'repository':<28} {'converted':>14} {'modules importing':>18} {'not idempotent':>15}")
    results = {}
    for repo in repos:
        r = measure(repo, args.timeout, args.requirements)
        results[repo.name] = r
        rate = r["converted"] / r["found"] if r["found"] else 1.0
        print(f"{repo.name:<28} {r['converted']:>5}/{r['found']:<5} {rate:>5.1%}  "
              f"{r['importing']:>6}/{r['modules']:<6}      {len(r['not_idempotent']):>6}", flush=True)
    for name, r in results.items():
        for module, why in sorted(r["failures"].items()):
            print(f"  {name}: {module}: {why}")
        for path in r["not_idempotent"]:
            print(f"  {name}: changes on a second conversion: {path}")


if __name__ == "__main__":
    main()
