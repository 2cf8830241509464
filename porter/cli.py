"""The ``jtport`` command line: ``convert``, ``doctor``, ``parity``, ``install-onednn``."""
from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import List, Optional

CONVERT_EPILOG = """\
exit codes:
  0  converted (or, with --check, nothing would change and nothing is unsupported)
  1  --check: a file would change or has unsupported torch uses;
     --strict: some torch use could not be converted
  2  usage or I/O error (missing source, output inside or onto the source, existing output
     without --overwrite, ...)

examples:
  jtport convert my_project/                 # writes my_project_jittor/
  jtport convert train.py -o train_jt.py --report report.md
  jtport convert src/ --in-place --exclude 'tests/*'
  jtport convert src/ --check                # CI: fails while torch code is left
"""


def _convert_parser(sub) -> None:
    p = sub.add_parser("convert", help="convert PyTorch code to Jittor",
                       description="Convert a PyTorch file or project to Jittor. Comments and "
                                   "formatting survive; what cannot be converted is left as it "
                                   "was, marked '# jtport: ...' and listed in the report.",
                       epilog=CONVERT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src", help="a .py file or a directory")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", help="output file/directory (default: <src>_jittor beside src)")
    where.add_argument("--in-place", action="store_true", help="rewrite the sources (atomically)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace files in an existing output (refused without it; read-only "
                        "files are never replaced, symbolic links in it never written through)")
    p.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a file would change or has unsupported uses")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything is unsupported")
    p.add_argument("--report", metavar="FILE", help="write the report (.json or .md)")
    p.add_argument("--exclude", metavar="GLOB", action="append", default=[],
                   help="skip matching paths (repeatable)")
    p.add_argument("-j", "--jobs", type=int, default=None, help="parallel processes (default: cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors")


class _Progress:
    """A one-line progress bar on stderr for larger trees on a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 5:
            return
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


# complexity: `jtport convert`'s option checks and report modes in one flow, in the order the command documents them
def run_convert(args: argparse.Namespace) -> int:  # noqa: C901
    """``jtport convert``: returns the exit code."""
    # lazy: each subcommand imports only its own flow (jtport doctor runs where libcst or Jittor is broken)
    from .convert.engine import ConvertError, convert_path

    if args.jobs is not None and args.jobs < 1:
        print("jtport: error: -j must be at least 1", file=sys.stderr)
        return 2
    dry = args.diff or args.check
    diffs: List[str] = []
    would_change: List[str] = []

    def on_result(src: Path, report, data: Optional[bytes]) -> None:
        if data is None:
            return
        would_change.append(report.path)
        if args.diff:
            old = src.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            new = data.decode("utf-8", errors="replace").splitlines(keepends=True)
            diffs.append("".join(difflib.unified_diff(old, new, f"a/{report.path}", f"b/{report.path}")))

    progress = _Progress(not args.quiet and sys.stderr.isatty())
    try:
        report = convert_path(args.src, args.output, in_place=args.in_place, exclude=args.exclude,
                              jobs=args.jobs, write=not dry, overwrite=args.overwrite,
                              progress=progress, on_result=on_result)
    except ConvertError as e:
        print(f"jtport: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"jtport: error: {e.filename or args.src}: {e.strerror or e}", file=sys.stderr)
        return 2
    if args.diff:
        sys.stdout.write("".join(diffs))
    if args.report:
        try:
            text = report.to_json() if args.report.endswith(".json") else report.to_markdown()
            Path(args.report).parent.mkdir(parents=True, exist_ok=True)
            # a file name that is not UTF-8 arrives as surrogate escapes: written as \\udcXX
            Path(args.report).write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError as e:
            print(f"jtport: error: cannot write report {args.report}: {e.strerror or e}", file=sys.stderr)
            return 2
    if not args.quiet and not args.diff:
        print(report.format_table())
    elif report.errors:
        for e in report.errors:
            print(f"jtport: {e.where()}: {e.code} {e.reason}", file=sys.stderr)
    if args.check:
        if would_change or report.unsupported:
            if not args.quiet:
                print(f"check failed: {len(would_change)} file(s) would change, "
                      f"{len(report.unsupported)} unsupported use(s)", file=sys.stderr)
            return 1
        return 0
    if args.strict and report.unsupported:
        return 1
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``jtport`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # non-UTF-8 file names must not crash a print
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = argparse.ArgumentParser(prog="jtport",
                                     description="Port PyTorch code to Jittor, and prove the port right.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _convert_parser(sub)
    sub.add_parser("doctor", help="diagnose the Jittor environment (jtport doctor --help)", add_help=False)
    sub.add_parser("parity", help="compare a torch model with its Jittor port (jtport parity --help)", add_help=False)
    sub.add_parser("install-onednn", help="install oneDNN from PyPI for Jittor (jtport install-onednn --help)",
                   add_help=False)
    if argv and argv[0] == "install-onednn":
        # lazy: each subcommand imports only its own flow
        from .doctor.onednn_install import main as onednn_main
        return onednn_main(argv[1:])
    if argv and argv[0] == "doctor":
        # lazy: each subcommand imports only its own flow
        from .doctor import main as doctor_main
        return doctor_main(argv[1:])
    if argv and argv[0] == "parity":
        # lazy: each subcommand imports only its own flow
        from .prove.command import main as parity_main
        return parity_main(argv[1:])
    args = parser.parse_args(argv)
    if args.command == "convert":
        return run_convert(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
