"""The training step through the gradient store vs before it, and vs raw Jittor, in one run.

    env $(python3 -m porter.machine.env --exports) PYTHONPATH=. .venv/bin/python bench/bench_grad_store.py

Times one Adam training step (forward, backward, update, ``jt.sync_all()``) of one model (each
form has its own optimizer over the same parameters) on the same batch, in these forms:

  jittor        raw Jittor: ``jt.optim.Adam(...).step(loss)`` (Jittor's fast path, its own Adam)
  fused         ``shims.optim.Adam``: ``opt.step(loss)`` (the converter's fused form)
  store         ``opt.zero_grad(); loss.backward(); opt.step()`` through ``.grad`` (unfused form)
  store+edit    the same plus ``p.grad.nan_to_num_()`` on every parameter (StyleGAN2-ADA)
  before:fused  ``opt.step(loss)`` with shims as it was before the store (optimizer-held gradients)
  before:split  ``opt.zero_grad(); opt.backward(loss); opt.step()`` with shims before the store
  before:jittor raw Jittor in the "before" process: the two processes' own speed difference

The "before" forms run in a child process importing ``shims`` from the last commit before
``shims/autograd.py`` existed (``git archive``; ``--baseline REV`` picks another), one request
at a time, interleaved with this process's rounds so that a shared machine's load falls on
both alike.  Each round keeps a form's fastest of ``--reps`` steps; a form's time is the
median of those over ``--rounds`` rounds (the fastest step is the one least disturbed by other
processes on a shared machine; the median over rounds, by slow phases of the machine).

Cases: ``cnn`` (3 convolutions + linear head, batch 16, 3x32x32: compute-bound) and
``mlp50`` (50 Linear(64, 64) layers, batch 32: Python overhead per parameter dominates).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ("cnn", "mlp50")
FORMS = ("jittor", "fused", "store", "store+edit")
BEFORE = ("before:fused", "before:split", "before:jittor")


def build(case: str):
    """(parameters, loss function) of a case, seeded."""
    import numpy as np

    import jittor as jt
    from jittor import nn

    jt.set_global_seed(0)
    rng = np.random.default_rng(0)
    if case == "cnn":
        model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, stride=2, padding=1),
                              nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        head = nn.Linear(64, 10)
        x = jt.array(rng.standard_normal((16, 3, 32, 32)).astype("float32"))
        y = jt.array(rng.standard_normal((16, 10)).astype("float32"))

        def loss():
            return ((head(model(x).mean([2, 3])) - y) ** 2).mean()

        return model.parameters() + head.parameters(), loss
    layers = []
    for _ in range(50):
        layers += [nn.Linear(64, 64), nn.Tanh()]
    model = nn.Sequential(*layers)
    x = jt.array(rng.standard_normal((32, 64)).astype("float32"))

    def loss():
        return (model(x) ** 2).mean()

    return model.parameters(), loss


def steps(case: str, forms) -> dict:
    """form -> one training step (synced): one model of ``case``, an optimizer per form."""
    import shims
    import jittor as jt

    # One model for every form, as a program running the plain loop holds one: a backward
    # through the store hands every live leaf to jt.grad (Jittor has no graph walk to find the
    # loss's leaves first), and a live model the loss does not use costs about 2 us per
    # parameter there; with a model per form, each store step paid for three idle models
    params, loss = build(case)
    out = {}
    for form in forms:
        if form in ("jittor", "before:jittor"):
            opt = jt.optim.Adam(params, lr=1e-3)
        else:
            opt = shims.optim.Adam(params, lr=1e-3)

        def step(form=form, opt=opt, params=params, loss=loss):
            if form in ("jittor", "before:jittor", "fused", "before:fused"):
                opt.step(loss())
            elif form == "before:split":
                opt.zero_grad()
                opt.backward(loss())
                opt.step()
            else:
                opt.zero_grad()
                loss().backward()
                if form == "store+edit":
                    for p in params:
                        shims.nan_to_num_(p.grad, nan=0, posinf=1e5, neginf=-1e5)  # as converted
                opt.step()
            jt.sync_all()

        out[form] = step
    return out


def timed(step, reps: int) -> float:
    """Fastest of ``reps`` calls of ``step``, in seconds."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return min(times)


def serve_before() -> int:
    """Child loop (shims from before the store): ``case form reps`` lines -> median seconds."""
    import shims

    assert not hasattr(shims, "autograd"), "the child imported the current shims"
    made = {}
    print(json.dumps({"shims": shims.__file__}), flush=True)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        case, form, reps = line.split()
        if case not in made:
            made[case] = steps(case, BEFORE)
        print(json.dumps(timed(made[case][form], int(reps))), flush=True)
    os._exit(0)  # at once: Jittor's exit handlers can hang here, and the parent's Jittor treats
    # a child killed by a signal as a crashed worker (SIGCHLD: it exits)


def baseline_rev(rev: str = "") -> str:
    """The commit before ``shims/autograd.py`` was added (or ``rev``)."""
    if rev:
        return rev
    added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", "shims/autograd.py"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    if not added:
        raise SystemExit("no commit adds shims/autograd.py here: pass --baseline REV")
    return added[-1] + "^"


class BeforeChild:
    """``shims`` of the baseline commit, in a child process, one request at a time."""

    def __init__(self, rev: str):
        self.tmp = tempfile.TemporaryDirectory(prefix="jtport-before-")
        archive = subprocess.run(["git", "archive", rev, "shims"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", self.tmp.name], input=archive, check=True)
        env = dict(os.environ, PYTHONPATH=self.tmp.name)
        self.proc = subprocess.Popen([sys.executable, __file__, "--before-side"], cwd=self.tmp.name, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.shims = json.loads(self.proc.stdout.readline())["shims"]

    def time(self, case: str, form: str, reps: int) -> float:
        self.proc.stdin.write(f"{case} {form} {reps}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        # "quit", not end of input: processes the parent's Jittor forks later (its compile
        # pool) inherit the pipe's write end, so the child would never see end of input
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.stdin.close()
        self.proc.wait(timeout=120)
        self.tmp.cleanup()


def measure(cases, rounds: int, reps: int, rev: str) -> dict:
    """{case: {form: median seconds}}."""
    child = BeforeChild(rev)
    results = {}
    try:
        for case in cases:
            mine = steps(case, FORMS)
            for form in FORMS:
                mine[form]()  # warm-up: Jittor compiles here
            for form in BEFORE:
                child.time(case, form, 1)
            times = {f: [] for f in FORMS + BEFORE}
            for _ in range(rounds):
                for form in BEFORE:
                    times[form].append(child.time(case, form, reps))
                for form in FORMS:
                    times[form].append(timed(mine[form], reps))
            results[case] = {f: statistics.median(t) for f, t in times.items()}
    finally:
        child.close()
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before-side", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=8)
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--baseline", default="", help="git revision of the 'before' shims")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.before_side:
        return serve_before()
    sys.path.insert(0, str(ROOT))
    rev = baseline_rev(args.baseline)
    results = measure(args.cases, args.rounds, args.reps, rev)
    short = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    print(f"# median over {args.rounds} interleaved rounds of the fastest of {args.reps} steps; "
          f"before = shims at {short}")
    # raw Jittor runs on both sides: its ratio is the two processes' own difference (measured up
    # to 1.2x on mlp50), which "vs before" divides out: (form / jittor) / (before / before:jittor)
    print(f"{'case':<6} {'form':<13} {'ms/step':>8} {'/ before:fused':>15} {'/ before:split':>15} {'/ jittor':>9} "
          f"{'vs before, same-process':>24}")
    for case, r in results.items():
        for form in BEFORE + FORMS:
            twin = {"fused": "before:fused", "store": "before:split", "store+edit": "before:split",
                    "jittor": "before:jittor"}.get(form)
            own = r["before:jittor"] if form.startswith("before") else r["jittor"]
            corrected = (f"{(r[form] / r['jittor']) / (r[twin] / r['before:jittor']):.2f} ({twin})"
                         if twin else "")
            print(f"{case:<6} {form:<13} {r[form] * 1e3:>8.2f} {r[form] / r['before:fused']:>15.2f} "
                  f"{r[form] / r['before:split']:>15.2f} {r[form] / own:>9.2f} {corrected:>24}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
