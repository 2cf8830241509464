"""Run the public-project corpus under torch and, converted by jtport, under Jittor.

Usage: ``python bench/bench_corpus.py [--only NAME ...] [--jobs N] [--shard K/N] [--timeout S]
[--json FILE] [--sides both|torch|jittor]``; ``--table JSON ...`` prints the table of earlier runs
(shards) together.

First ``python bench/corpus/fetch.py --deps`` (writes ``build/corpus/<name>/src`` from a local mirror).
For each project of ``bench/corpus/manifest.toml``: copy ``src`` to ``build/corpus/<name>/torch``
and convert it whole with ``jtport convert`` to ``build/corpus/<name>/jittor`` (no hand edit), make
the tiny synthetic data of its recipe in each (``bench/corpus/synth.py``), then run its training
entry point for a few iterations: under ``.venv-torch`` and, converted, under ``.venv`` with
``porter.machine.env``'s exports, each with one thread and a time limit (the converted run's is
``--jittor-factor`` times longer: Jittor compiles its kernels on first use). A run that reaches its time
limit after printing a loss counts as running (scripts whose iteration count is fixed in code);
``--stop-after K`` stops each run once it printed K losses (and no traceback), which measures the
same thing sooner. ``--reuse`` keeps each project's saved ``result.json`` from an earlier run
(except time-outs). ``--jittor-home DIR`` gives the converted runs a Jittor home of their own.
Extra pure-Python dependencies named in the manifest come from ``build/corpus/_deps/<side>``.

Prints per project: torch runs?, port runs?, the last loss of each and whether it is finite, and
the converted run's first error with a guessed class (unmapped API / wrong rewrite / shim / Jittor
limitation / data recipe) and location; then the share of torch-running projects whose conversion
runs. Writes ``build/corpus/results.json`` (or ``--json``). Logs: ``build/corpus/<name>/*.log``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
from manifest import load_projects  # noqa: E402
from outcome import LOSS_RE, classify, first_error, is_finite, last_loss  # noqa: E402
from synth import make_data, new_files  # noqa: E402

OUT = ROOT / "build" / "corpus"
TORCH_PY = str(ROOT / ".venv-torch" / "bin" / "python")
JT_PY = str(ROOT / ".venv" / "bin" / "python")


def _jittor_exports(home: str = "") -> dict:
    """The variables ``porter.machine.env --exports`` sets for every Jittor run (IEEE kernels, CPU).

    ``JITTOR_HOME`` is pinned (``home``, else ``$JITTOR_HOME``, else ``$HOME``): Jittor otherwise
    follows a home another process persisted in ``~/.cache/jittor/config.json``. A home of the
    bench's own (a copy of the shared ``.cache/jittor``) has its own compile lock: every Jittor
    process on a machine otherwise queues on one lock while any of them compiles.
    """
    env = dict(os.environ)
    env["JITTOR_HOME"] = home or os.environ.get("JITTOR_HOME") or os.environ["HOME"]
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-m", "porter.machine.env", "--exports"], text=True, env=env,
                         capture_output=True, check=True).stdout.split()
    return {"JITTOR_HOME": env["JITTOR_HOME"], **dict(kv.split("=", 1) for kv in out if "=" in kv)}


def side_env(side: str, project: dict, exports: dict, tree: Path) -> dict:
    """A child's whole environment: one thread, no display, the corpus deps, jtport on the path.

    The manifest's ``pythonpath`` (folders of the project's tree) come first.
    """
    deps = OUT / "_deps" / side
    paths = [str(tree / p) for p in project.get("pythonpath", [])]
    paths += [str(deps)] if project.get("deps") else []
    paths += [str(ROOT)] if side == "jittor" else []
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg",
           "PYTHONHASHSEED": "0", "PYTHONUNBUFFERED": "1", "CUDA_VISIBLE_DEVICES": "",
           "PYTHONPATH": os.pathsep.join(paths)}
    if side == "jittor":
        env.update(exports)
        # HOME too: Jittor persists a JITTOR_HOME that differs from ~/.cache/jittor/config.json's
        # into that file, which would move every other Jittor process on the machine.
        env["HOME"] = exports.get("JITTOR_HOME", env["HOME"])
    env.update(project.get("env", {}))
    return env


def run_child(cmd: list, cwd: Path, env: dict, timeout: float, log: Path, enough=None) -> tuple:
    """Run ``cmd``; on time-out SIGTERM its process group (Jittor's SIGCHLD handler needs that).

    ``enough(text)`` is polled on the log: when it says the run has shown what is measured (its
    losses), the child is stopped like a time-out and the log says so. Returns (exit code, or None
    when stopped, seconds, output).
    """
    t0 = time.monotonic()
    stopped = None
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        while True:
            try:
                rc = proc.wait(timeout=2)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - t0 > timeout:
                stopped = f"TIMEOUT after {timeout:.0f} s"
            elif enough is not None and enough(log.read_text(errors="replace")):
                stopped = f"STOPPED after {time.monotonic() - t0:.0f} s: enough losses printed"
            if stopped:
                rc = None
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                break
    seconds = time.monotonic() - t0
    if stopped:
        with open(log, "a") as fh:
            fh.write(f"\n{stopped}\n")
    return rc, seconds, log.read_text(errors="replace")


# Jittor rebuilt its own core and exits with status 0 asking for a rerun: not a run of the project.
JITTOR_RESTART = "jit_utils updated, please rerun your command"


def side_result(rc, seconds: float, text: str, project: dict, tree: Path) -> dict:
    """One side's verdict: runs (exit 0, or timed out after printing a loss, no traceback)."""
    loss = last_loss(text, project.get("loss_regex"))
    err = first_error(text, str(tree))
    ran = (rc == 0 and JITTOR_RESTART not in text) or (rc is None and loss is not None and err is None)
    return {"runs": ran, "rc": rc, "timed_out": rc is None, "seconds": round(seconds, 1),
            "loss": loss, "finite": is_finite(loss), "error": None if ran else err}


def convert(src: Path, dst: Path, pdir: Path, root: str = "") -> dict:
    """``jtport convert`` the whole project; the report's counts of converted and marked uses.

    ``root`` (the manifest's ``project_root``) names the folder of a repository that is the project
    (one example of a collection): only it is converted, the rest is copied as it is.
    """
    if dst.exists():
        shutil.rmtree(dst)
    if root:
        shutil.copytree(src, dst)
        shutil.rmtree(dst / root)
        src, dst = src / root, dst / root
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "PYTHONPATH": str(ROOT)}
    report = pdir / "convert.json"
    proc = subprocess.run([JT_PY, "-m", "porter.cli", "convert", str(src), "-o", str(dst), "-q", "-j", "1",
                           "--report", str(report)], env=env, text=True, capture_output=True, timeout=600)
    out = {"rc": proc.returncode, "stderr": proc.stderr[-2000:]}
    if report.exists():
        data = json.loads(report.read_text())
        out["totals"] = data.get("totals", {})
        out["unsupported"] = data.get("unsupported_by_api", [])[:20]
    return out


def _enough(project: dict, count: int):
    """A test of a log: has it printed ``count`` losses and no traceback? (None: never stop early)."""
    if not count:
        return None
    rx = re.compile(project["loss_regex"], re.MULTILINE) if project.get("loss_regex") else LOSS_RE
    return lambda text: len(rx.findall(text)) >= count and "Traceback (most recent call last)" not in text


def run_project(project: dict, timeout: float, exports: dict, sides: str = "both", jt_factor: float = 3.0,
                stop_after: int = 0) -> dict:
    """Torch run, conversion and converted run of one project (see the module doc)."""
    name = project["name"]
    pdir = OUT / name
    src = pdir / "src"
    res = {"name": name, "repo": project["repo"], "commit": project["commit"], "year": project["year"],
           "domain": project["domain"]}
    if not src.is_dir():
        res["skipped"] = "not fetched (run bench/corpus/fetch.py)"
        return res
    limit = project.get("timeout", timeout)
    entry = project["entry"]
    recipe = project.get("data", [])
    torch_env = side_env("torch", project, exports, pdir / "torch")
    jt_env = side_env("jittor", project, exports, pdir / "jittor")
    cwd_rel = entry.get("cwd", ".")
    data = pdir / "data"
    if data.exists():
        shutil.rmtree(data)
    shutil.copytree(src, data)
    try:
        make_data(data / cwd_rel, recipe, TORCH_PY, side_env("torch", project, exports, data))
        made = new_files(data, src)
    except Exception as exc:  # the recipe itself failed: no run can start
        res["data_error"] = f"{exc}"[:600]
        made = None
    for side in (("torch", "jittor") if sides == "both" else (sides,)):
        tree = pdir / side
        if side == "torch":
            if tree.exists():
                shutil.rmtree(tree)
            shutil.copytree(src, tree)
        else:
            res["convert"] = convert(src, tree, pdir, project.get("project_root", ""))
            if res["convert"]["rc"] not in (0, 1):
                res[side] = {"runs": False, "error": {"exception": "jtport convert failed: "
                             + res["convert"]["stderr"][-300:], "where": {}, "innermost": ""}}
                continue
        if side == "jittor" and sides == "both" and not res["torch"]["runs"]:
            res[side] = {"runs": False, "skipped": "torch does not run it", "error": None}
            continue
        if made is None:
            res[side] = {"runs": False, "error": {"exception": "data recipe: " + res["data_error"][:300],
                                                   "where": {}, "innermost": ""}}
            continue
        for rel in made:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(data / rel, tree / rel)
        cwd = tree / cwd_rel
        py = TORCH_PY if side == "torch" else JT_PY
        for _attempt in range(2):
            rc, seconds, text = run_child([py] + entry["args"], cwd, torch_env if side == "torch" else jt_env,
                                          limit * (1 if side == "torch" else jt_factor), pdir / f"{side}.log",
                                          _enough(project, stop_after))
            if JITTOR_RESTART not in text:
                break
        res[side] = side_result(rc, seconds, text, project, tree)
    torch_ok = res.get("torch", {}).get("runs", True)
    jt = res.get("jittor", {})
    res["class"] = None if jt.get("runs") else classify(jt.get("error"), torch_ok,
                                                         (pdir / "jittor.log").read_text(errors="replace")
                                                         if (pdir / "jittor.log").exists() else "")
    return res


def _project_result(project: dict, args, exports: dict) -> dict:
    """One project's result: reused from its result.json with ``--reuse``, else run and saved."""
    saved = OUT / project["name"] / "result.json"
    if args.reuse and saved.exists():
        res = json.loads(saved.read_text())
        if res.get("commit") == project["commit"] and res.get("class") != "timeout":
            return res
    res = run_project(project, args.timeout, exports, args.sides, args.jittor_factor, args.stop_after)
    if saved.parent.is_dir():
        saved.write_text(json.dumps(res, indent=1))
    return res


def _fmt_loss(side: dict) -> str:
    loss = side.get("loss")
    return "-" if loss is None else f"{loss:.4g}"


def print_table(results: list) -> None:
    """One row per project, then the headline share."""
    print(f"{'project':28} {'year':4} {'domain':14} {'torch':6} {'port':6} {'loss t':>9} {'loss j':>9}  "
          "class / first error")
    for r in results:
        if "skipped" in r:
            print(f"{r['name']:28} {r['year']:<4} {r['domain'][:14]:14} skipped: {r['skipped']}")
            continue
        t, j = r.get("torch", {}), r.get("jittor", {})
        err = j.get("error") or {}
        where = err.get("where") or {}
        loc = where.get("project") or where.get("shims") or where.get("jittor") or ""
        note = "" if j.get("runs") else f"[{r.get('class')}] {loc} {err.get('exception', '')}"[:160]
        def yn(s):
            return "-" if not s else ("yes" + ("*" if s.get("timed_out") else "") if s.get("runs") else "NO")
        print(f"{r['name']:28} {r['year']:<4} {r['domain'][:14]:14} {yn(t):6} {yn(j):6} "
              f"{_fmt_loss(t):>9} {_fmt_loss(j):>9}  {note}")
    torch_ok = [r for r in results if r.get("torch", {}).get("runs")]
    both = [r for r in torch_ok if r.get("jittor", {}).get("runs")]
    finite = [r for r in both if r["jittor"].get("finite") is not False]
    print("\n(* = stopped at its time limit or after --stop-after losses, having printed a loss and no error)")
    print(f"projects: {len(results)}; torch runs: "
          f"{len(torch_ok)}; port runs with no hand edit: {len(both)}/{len(torch_ok)}"
          + (f" = {100 * len(both) / len(torch_ok):.0f}%" if torch_ok else "")
          + f"; of those, last loss finite or not printed: {len(finite)}")


def main(argv=None) -> int:
    """Run the selected projects (``--jobs`` at a time), print the table, write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run (manifest may override)")
    ap.add_argument("--json", default=str(OUT / "results.json"))
    ap.add_argument("--jittor-factor", type=float, default=3.0,
                    help="the converted run's time limit is this many times torch's (Jittor compiles its kernels)")
    ap.add_argument("--stop-after", type=int, default=0, metavar="K",
                    help="stop a run once it printed K losses (scripts whose iteration count is fixed in code)")
    ap.add_argument("--reuse", action="store_true",
                    help="keep a project's result from an earlier run (build/corpus/<name>/result.json)")
    ap.add_argument("--jittor-home", default="", help="JITTOR_HOME for the converted runs (default $HOME)")
    ap.add_argument("--jittor-flag", action="append", default=[], metavar="NAME=VALUE",
                    help="a Jittor flag for the converted runs (Jittor reads its flags from the environment): "
                         "no_fuse=1 compiles one kernel per op, shared by every project, not one per fused graph; "
                         "not for conv nets: each convolution's unfolded input is then materialised and oneDNN "
                         "is bypassed (ResNet-18, batch 4 at 224 px: killed for memory at 18 GB)")
    ap.add_argument("--shard", default="", help="K/N: run only every N-th project from the K-th (0-based)")
    ap.add_argument("--table", nargs="+", metavar="JSON", help="print the table of earlier results and exit")
    ap.add_argument("--sides", choices=("both", "torch", "jittor"), default="both",
                    help="run only the torch side (to check a data recipe) or only the port")
    args = ap.parse_args(argv)
    if args.table:
        loaded = [json.loads(Path(f).read_text()) for f in args.table]  # run JSONs or per-project result.json
        results = [r for d in loaded for r in d.get("results", [d])]
        order = {p["name"]: i for i, p in enumerate(load_projects())}
        print_table(sorted(results, key=lambda r: order.get(r["name"], len(order))))
        return 0
    projects = load_projects(args.only)
    if args.shard:
        k, n = (int(v) for v in args.shard.split("/"))
        projects = projects[k::n]
    exports = {**_jittor_exports(args.jittor_home), **dict(f.split("=", 1) for f in args.jittor_flag)}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: _project_result(p, args, exports), projects))
    print_table(results)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                           "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
