"""Per-API parity on a GPU: Jittor with ``use_cuda=1`` against torch on the same device.

    python -m parity_tests.api.device_run --cases parity_tests/api/cuda_cases.txt --out DIR \\
        [--device cuda] [--case-timeout 90] [--warm-timeout 300] [--precise]

The torch side (``parity_tests/torch_side/api_cases.py --device D --cases FILE``, cached like
every torch side) runs the selected cases on ``--device`` with TF32 off; the Jittor side runs
them with ``jt.flags.use_cuda`` on when ``--device`` is not ``cpu`` (``--device cpu`` is the
same run on the CPU: how this script is tried where there is no GPU).  Each case is judged by
:class:`parity_tests.api.runner.CaseRunner`, the judge of ``test_api_parity.py``.

Jittor compiles each new CUDA kernel with nvcc (seconds each) and a kernel can hang, so the
cases run in a child process that this one watches: the child first compiles the selection's
kernels in parallel batches (``CaseRunner.warm``, bounded by ``--warm-timeout``; on timeout a
new child runs the cases without it), then one case at a time, each bounded by
``--case-timeout`` (on timeout the case is recorded as such and a new child takes the rest).
Each outcome is appended to ``DIR/api_<label>.jsonl`` as it comes; ``DIR/api_<label>.json``
sums them up at the end and the summary is printed.

Jittor 1.3.11 compiles every CUDA kernel with ``--use_fast_math`` (flush-to-zero, approximate
division and square root, fast ``exp``/``log``), whatever ``cc_flags`` says.  ``--precise``
removes that flag from ``jt.flags.nvcc_flags`` in the child before any kernel compiles, to
measure what the flag alone costs.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

from parity_tests.api.case import read_case_ids

ROOT = Path(__file__).resolve().parents[2]
MARK = "@@device_run "  # the child's protocol lines on stdout (Jittor logs there too)


def torch_results(cases_file: Path, device: str) -> Path:
    """The torch side's results of the selected cases on ``device`` (run now or cached)."""
    from porter.prove.torchside import run_torch

    from .runner import TORCH_SIDE

    name = f"api_cases_{device.replace(':', '_')}_{cases_file.stem}"
    return run_torch(TORCH_SIDE.script, name, (*TORCH_SIDE.deps, cases_file.resolve()),
                     args=["--device", device, "--cases", str(cases_file.resolve())])


# ----------------------------------------------------------------------------- the child


def _emit(kind: str, **data) -> None:
    print(MARK + json.dumps({"kind": kind, **data}), flush=True)


def child(folder: Path, ids_file: Path, use_cuda: bool, warm: bool, precise: bool) -> int:
    """Run the listed cases under Jittor, one protocol line per event on stdout."""
    import shims  # noqa: F401  (applies porter.machine.env's settings before Jittor's import)
    import jittor as jt

    from .runner import CaseRunner, cases_by_id

    if use_cuda and not jt.has_cuda:
        _emit("fatal", error="Jittor has no CUDA here (jt.has_cuda is 0): see `jtport doctor`")
        return 2
    if precise:
        jt.flags.nvcc_flags = jt.flags.nvcc_flags.replace("--use_fast_math", "")
    jt.flags.use_cuda = 1 if use_cuda else 0
    runner = CaseRunner(folder)
    cases = [cases_by_id()[i] for i in read_case_ids(ids_file)]
    _emit("started", use_cuda=int(jt.flags.use_cuda), nvcc_flags=jt.flags.nvcc_flags,
          cc_flags=jt.flags.cc_flags)
    if warm:
        t0 = time.time()
        runner.warm(cases)
        _emit("warmed", seconds=round(time.time() - t0, 1))
    for case in cases:
        _emit("case", id=case.id)
        t0 = time.time()
        res = runner.run(case)
        _emit("result", id=case.id, api=case.api, ok=res.ok, forward=res.forward, gradient=res.gradient,
              max_abs_err=res.max_abs_err, max_rel_err=res.max_rel_err, detail=res.detail[:1500],
              seconds=round(time.time() - t0, 2))
    return 0


# ----------------------------------------------------------------------------- the parent


def child_command(args: List[str]) -> List[str]:
    """The command line of a child running ``args`` (tests put a stand-in child here)."""
    return [sys.executable, "-m", "parity_tests.api.device_run", *args]


class Watch:
    """One child process and its protocol lines, each awaited with a deadline."""

    def __init__(self, args: List[str], env: Dict[str, str]):
        self.proc = subprocess.Popen(child_command(args), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     start_new_session=True)
        self.pending = b""  # read from the pipe, not yet split into lines

    def next(self, timeout: float) -> Optional[dict]:
        """The next protocol message; None at end of output; ``{"kind": "timeout"}`` after
        ``timeout`` seconds without one (other output is passed on to stderr).

        The pipe is read with ``os.read``, lines split here: a buffered reader would keep lines
        it has read ahead where ``select`` cannot see them, and wait for a timeout instead."""
        end = time.time() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text.startswith(MARK):
                    return json.loads(text[len(MARK):])
                sys.stderr.write(text + "\n")
            left = end - time.time()
            if left <= 0:
                return {"kind": "timeout"}
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self.pending += chunk

    def exit_code(self) -> Optional[int]:
        """The child's exit status once its output ended (a segfault: -11), None if it lingers."""
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """End the child and everything it started (nvcc): SIGTERM first, which a process with
        Jittor loaded tolerates (Jittor's SIGCHLD handler ends its own process when a child of
        it dies of any other signal), then SIGKILL if the child is still there after 5 s."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
        self.proc.wait()


def run_all(ids: List[str], folder: Path, log: Path, opts: argparse.Namespace) -> Dict[str, dict]:
    """Run ``ids`` in watched children; returns each case's outcome (appended to ``log`` too)."""
    outcomes: Dict[str, dict] = {}
    todo, warm = list(ids), not opts.no_warm
    env = dict(os.environ, PYTHONUNBUFFERED="1")

    def record(entry: dict) -> None:
        outcomes[entry["id"]] = entry
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        print(f"{'ok  ' if entry.get('ok') else entry['status'].upper():8} {entry['id']}  "
              f"{entry.get('detail', '')[:300]}", flush=True)

    while todo:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(todo) + "\n")
        args = ["--child", str(folder), "--ids", f.name, "--device", opts.device]
        args += (["--precise"] if opts.precise else []) + ([] if warm else ["--no-warm"])
        watch = Watch(args, env)
        current, phase, before = None, "start", len(todo)
        try:
            while True:
                msg = watch.next(opts.warm_timeout if phase in ("start", "warm") else opts.case_timeout)
                kind = None if msg is None else msg["kind"]
                if kind == "started":
                    print(f"child: use_cuda={msg['use_cuda']} nvcc_flags={msg['nvcc_flags']!r}", flush=True)
                    phase = "warm" if warm else "cases"
                elif kind == "warmed":
                    print(f"child: kernels of {len(todo)} cases compiled in {msg['seconds']} s", flush=True)
                    phase = "cases"
                elif kind == "case":
                    current, phase = msg["id"], "cases"
                elif kind == "result":
                    msg.pop("kind")
                    record(dict(msg, status="passed" if msg["ok"] else "failed"))
                    todo.remove(msg["id"])
                    current = None
                elif kind == "fatal":
                    raise SystemExit(f"device_run: {msg['error']}")
                else:  # a timeout, or the child ended (crashed) before finishing its list
                    why = "timeout" if kind == "timeout" else f"child exited {watch.exit_code()}"
                    if current is not None:
                        record({"id": current, "status": "timeout" if kind == "timeout" else "crashed",
                                "ok": False, "detail": f"{why} in this case"})
                        todo.remove(current)
                    elif phase == "warm":
                        print(f"child: warm-up stopped ({why}); the cases run one by one", flush=True)
                        warm = False
                    elif phase == "start" or len(todo) == before:
                        raise SystemExit(f"device_run: the child ran no case ({why})")
                    break
                if not todo:
                    break
        finally:
            watch.kill()
            os.unlink(f.name)
    return outcomes


def summarize(outcomes: Dict[str, dict], ids: List[str]) -> dict:
    """Counts by status and the non-passing cases with why."""
    statuses = [outcomes[i]["status"] for i in ids if i in outcomes]
    return {"cases": len(ids), "run": len(statuses),
            **{s: statuses.count(s) for s in ("passed", "failed", "timeout", "crashed")},
            "not_passed": {i: f"{outcomes[i]['status']}: {outcomes[i].get('detail', '')}"
                           for i in ids if i in outcomes and outcomes[i]["status"] != "passed"}}


def main(argv: Optional[List[str]] = None) -> int:
    """Command line: see the module's docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=ROOT / "parity_tests" / "api" / "cuda_cases.txt")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "parity" / "device_run")
    ap.add_argument("--device", default="cuda", help="torch's device; Jittor uses CUDA unless it is cpu")
    ap.add_argument("--case-timeout", type=float, default=90.0)
    ap.add_argument("--warm-timeout", type=float, default=300.0)
    ap.add_argument("--precise", action="store_true", help="compile CUDA kernels without --use_fast_math")
    ap.add_argument("--no-warm", action="store_true", help="compile kernels case by case")
    ap.add_argument("--label", help="names the output files (default: the device, +precise)")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--ids", type=Path, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.child:
        return child(opts.child, opts.ids, opts.device != "cpu", not opts.no_warm, opts.precise)
    # `timeout` ends this process with SIGTERM: exit through the `finally` that kills the child
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ids = read_case_ids(opts.cases)
    label = opts.label or opts.device.replace(":", "_") + ("_precise" if opts.precise else "")
    opts.out.mkdir(parents=True, exist_ok=True)
    log = opts.out / f"api_{label}.jsonl"
    log.unlink(missing_ok=True)
    t0 = time.time()
    folder = torch_results(opts.cases, opts.device)
    print(f"torch side on {opts.device}: {len(ids)} cases in {time.time() - t0:.0f} s ({folder})", flush=True)
    outcomes = run_all(ids, folder, log, opts)
    summary = dict(summarize(outcomes, ids), label=label, seconds=round(time.time() - t0))
    (opts.out / f"api_{label}.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{label}: {summary['passed']}/{summary['cases']} passed, {summary['failed']} failed, "
          f"{summary['timeout']} timed out, {summary['crashed']} crashed, in {summary['seconds']} s", flush=True)
    for i, why in summary["not_passed"].items():
        print(f"  {i}: {why[:400]}", flush=True)
    return 0 if summary["passed"] == summary["cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
