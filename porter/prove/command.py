"""``jtport parity SPEC``: compare a user's torch model with its Jittor conversion.

The torch model runs in a separate torch interpreter (``--torch-python``, default
``$JTPORT_TORCH_PYTHON`` or the workspace's ``.venv-torch``: the checkout's, or the current
directory's for an installed jtport, :mod:`porter.prove.workspace`) which saves weights,
inputs, outputs, every submodule's output and parameter gradients; this process (Jittor) loads
the weights into the converted model through ``shims``, runs the same inputs and compares.  On a
mismatch it names the first submodule, in execution order, whose output diverges.  With a
``checkpoint`` (``--checkpoint FILE``: weights the upstream torch code saved; ``PART=FILE`` for
a file of one submodule or factory argument) both sides load those files instead, and a
``checkpoint`` row compares the two loaded models' weights first.  The spec
format is in ``porter/prove/spec.py`` and ``docs/parity.md``.

Exit codes: 0 everything matched; 1 a comparison failed; 2 bad spec, usage or torch-side error.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

from . import checkpoint, loss_terms, spec, workspace
from .checkpoint import require_file

HARNESS = Path(__file__).resolve().parent
EPILOG = """\
exit codes:
  0  outputs, gradients (and optimizer steps) match within rtol/atol
  1  a comparison failed (the first diverging submodule is printed)
  2  bad spec, usage error, or the torch side failed

example (see docs/parity.md):
  jtport convert src/ -o src_jittor
  jtport parity parity.toml
  jtport parity parity.toml --checkpoint gen_00600000.pt   # weights the torch code saved
  jtport parity mccnet.toml --checkpoint decoder=decoder.pth --checkpoint @net:vgg=vgg.pth  # per part
  jtport parity --run src/train.py src_jittor/train.py --steps 5 -- ARGS  # a whole script (--run --help)
"""


def _harness():
    """The harness's spec loading (``porter.prove.spec``)."""
    return spec


def _torch_key(spec, torch_python: str) -> str:
    """What the torch reference depends on: the spec's torch-side fields, the torch sources,
    the checkpoint, the harness's torch-side code and the interpreter."""
    h = hashlib.sha256()
    h.update(repr((spec.factory, spec.forward, spec.seed, spec.inputs, spec.steps, spec.optimizer,
                   spec.method, spec.factory_args, spec.factory_kwargs, spec.forward_kwargs, spec.shared_random,
                   str(spec.torch_root), torch_python, spec.loss, spec.loss_inputs)).encode())
    h.update(checkpoint.fingerprint(spec))
    loss_files = [_harness().loss_module_file(spec)] if spec.loss else []
    for f in _harness().torch_sources(spec) + sorted(HARNESS.rglob("*.py")) + loss_files:
        h.update(os.fsencode(f))  # a file name that is not UTF-8 hashes as its bytes
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _torch_side(spec, out: Path, torch_python: str) -> Optional[str]:
    """Run the torch side unless ``out`` holds a reference with the same key; None on
    success, else the error text."""
    key = _torch_key(spec, torch_python)
    stamp = out / "reference.key"
    if stamp.exists() and stamp.read_text() == key and (out / "reference.npz").exists():
        return None

    try:
        with workspace.torch_pythonpath() as pythonpath:
            extra = [a for cf in spec.checkpoints
                     for a in ("--checkpoint", f"{cf.part}={cf.file}" if cf.part else str(cf.file))]
            extra += ["--loss", spec.loss] if len(spec.loss_terms) > 1 else []
            proc = subprocess.run([torch_python, "-m", "porter.prove.torch_side.spec_torch", str(spec.path),
                                   "--out", str(out), "--torch-root", str(spec.torch_root), *extra],
                                  cwd=workspace.ROOT, env=workspace.torch_env(pythonpath),
                                  capture_output=True, text=True)
    except OSError as e:
        return (f"cannot run the torch interpreter {torch_python}: {e.strerror or e} (pass --torch-python, "
                "or set JTPORT_TORCH_PYTHON, to a Python that has torch)")
    if proc.returncode != 0:
        log = out / "torch_side.log"
        log.write_text(proc.stdout + proc.stderr, errors="replace")
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        where = [ln.strip() for ln in lines if ln.strip().startswith("File ")][-1:]
        last = lines[-1] if lines else "(no error output)"
        return (f"torch side failed (exit {proc.returncode}): {last}"
                + (f"\n  at {where[0]}" if where else "") + f"\n  full output: {log}")
    stamp.write_text(key)
    return None


def main(argv: List[str]) -> int:
    """Entry point of ``jtport parity``; returns the exit code."""
    if "--run" in argv[:argv.index("--") if "--" in argv else len(argv)]:
        from .run_cmd import main as run_main  # lazy: --run needs none of the spec machinery below

        return run_main(argv)
    ap = argparse.ArgumentParser(prog="jtport parity", epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description="Compare a torch model with its Jittor conversion: outputs, "
                                             "gradients, optimizer steps; name the first diverging submodule.")
    ap.add_argument("spec", help="the spec file (TOML, see docs/parity.md)")
    ap.add_argument("--out", help="where the torch reference and results go (default: build/parity/user/<spec name> "
                                  "in the current folder); "
                                  "the reference is reused while the torch code and spec are unchanged")
    ap.add_argument("--torch-python", help="interpreter with torch installed (default: $JTPORT_TORCH_PYTHON, else "
                                           ".venv-torch in the jtport checkout, or in the current folder)")
    ap.add_argument("--torch-root", help="override the spec's torch_root (e.g. your clone of an upstream repository)")
    ap.add_argument("--jittor-root", help="override the spec's jittor_root (its conversion)")
    ap.add_argument("--checkpoint", action="append", metavar="[PART=]FILE",
                    help="override the spec's checkpoint: a file the torch code saved (.pth/.pt); both sides "
                         "load it, at the spec's checkpoint_key. PART=FILE (repeatable) loads a file into one "
                         "part: a submodule (decoder) or a factory argument (@net:vgg)")
    ap.add_argument("--rtol", type=float, help="override the spec's rtol")
    ap.add_argument("--atol", type=float, help="override the spec's atol")
    args = ap.parse_args(argv)

    specmod = _harness()

    torch_python = args.torch_python or workspace.default_torch_python()
    try:
        spec = specmod.with_roots(specmod.load_spec(args.spec), args.torch_root, args.jittor_root,
                                  args.checkpoint)
        if spec.checkpoints:
            require_file(spec)
    except specmod.SpecError as e:
        print(f"jtport parity: error: {e}", file=sys.stderr)
        return 2
    rtol = spec.rtol if args.rtol is None else args.rtol
    atol = spec.atol if args.atol is None else args.atol
    # by default next to the user's work (the current folder), never inside jtport's checkout
    out = Path(args.out) if args.out else Path.cwd() / "build" / "parity" / "user" / spec.name
    out.mkdir(parents=True, exist_ok=True)

    # one torch reference and one set of gradient rows per loss term (porter.prove.loss_terms)
    terms = spec.loss_terms if len(spec.loss_terms) > 1 else [None]
    runs = [(specmod.for_term(spec, t) if t else spec, out / "terms" / loss_terms.folder_name(t) if t else out,
             f"[{t}]" if t else "") for t in terms]
    for one, where, label in runs:  # every torch side first: a failing one stops before any Jittor work
        where.mkdir(parents=True, exist_ok=True)
        print(f"torch side: {one.factory} from {one.torch_root}" + (f", loss {one.loss}" if label else ""))
        try:
            err = _torch_side(one, where, torch_python)
        except specmod.SpecError as e:
            err = str(e)
        if err:
            print(f"jtport parity: error: {err}", file=sys.stderr)
            return 2
    rows: list = []
    for n, (one, where, label) in enumerate(runs):
        code = _check(one, where, rtol, atol, rows, first=n == 0, label=label)
        if code is not None:
            return code
    return _report(rows, out, spec.name, per_term=len(runs) > 1)


def _check(spec, out: Path, rtol: float, atol: float, rows: list, first: bool, label: str) -> Optional[int]:
    """The port's rows against the torch reference in ``out`` (appended to ``rows``: the
    checkpoint and forward rows only when ``first``, the gradient and step rows named with
    ``label``); an exit code if the run cannot go on, else None."""
    specmod = _harness()
    # lazy: import shims costs about 1 s (docs/ARCHITECTURE.md); only a run that reaches the
    # Jittor side pays it
    import shims  # noqa: F401  (applies the Jittor environment before jittor is imported)

    from .model import ModelParity, default_forward
    from .random_patches import shared_random

    try:
        converted_loss = specmod.convert_loss(spec, out / "loss_jittor") if spec.loss else None
        model, forward = specmod.build(spec, "jittor", default_forward, shared_random, converted_loss)
        model_loss = specmod.build_loss(spec, "jittor", converted_loss)
    except specmod.SpecError as e:
        print(f"jtport parity: error: {e}", file=sys.stderr)
        return 2
    if first:
        print(f"jittor side: {spec.jittor_factory} from {spec.jittor_root}")
    weights = None
    if spec.checkpoints:
        try:
            row, weights = checkpoint.check_port(spec, model, out / "reference.npz", out / "results")
        except specmod.SpecError as e:
            print(f"jtport parity: error: {e}", file=sys.stderr)
            return 2
        if first or weights is None:
            rows.append(row)
        if weights is None:  # the converted model does not load the file: nothing else to compare
            return _report(rows, out, spec.name)
    try:
        loss = (None if model_loss is None else
                (lambda outputs, inputs: model_loss(model, inputs, outputs)))
        p = ModelParity(spec.name, out / "reference.npz", model, forward=forward, loss=loss,
                        results=out / "results", weights=weights)
    except (RuntimeError, KeyError, ValueError) as e:
        print(f"jtport parity: error: loading the torch weights into the port failed: {e}", file=sys.stderr)
        return 1
    p.float64_first(spec.optimizer if spec.steps else None)  # before anything float32: see ModelParity.float64_run
    rows += [p.check_forward("forward", rtol, atol)] if first else []
    rows.append(p.check_grads("grads" + label, rtol, atol))
    if spec.steps:
        rows.append(p.check_steps("steps" + label, spec.optimizer, rtol, atol))
    return None


def _report(rows, out: Path, name: str, per_term: bool = False) -> int:
    """Print the rows (with the detail of a failure or a noted pass) and where they were
    recorded (``per_term``: one file per loss term, under ``out/terms/``); the exit code."""
    for row in rows:
        mark = "ok  " if row.ok else "FAIL"
        errors = (f"max abs err {row.max_abs_err:.3g}  max rel err {row.max_rel_err:.3g}"
                  if row.max_abs_err is not None else "")
        print(f"{mark} {row.case:<8} {errors}".rstrip())
        if not row.ok or row.detail.endswith("]"):  # a failure, or a pass with a note
            print(f"     {row.detail}")
    if per_term:
        print(f"results: {out / 'terms'}/<term>/results/{name}.json (one file per loss term)")
    else:
        print(f"results: {out / 'results' / (name + '.json')}")
    return 0 if all(r.ok for r in rows) else 1
