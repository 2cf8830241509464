"""jtport's converter: PyTorch source in, Jittor source and a report out.

Public API:

* :func:`convert_source` -- one file's text;
* :func:`convert_path` -- a file or a directory tree (parallel, atomic in-place writes).

The names are imported on first use (PEP 562): the torch side of the parity harness
(``porter.prove.torch_side``, run by ``.venv-torch``, which has no libcst) and the leaves
(``porter.mapping``, ``porter.machine``, imported by ``shims`` and by the Makefile's ``python3``)
import this package too, and must not pull the converter in: standard library only here.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

__all__ = ["convert_source", "convert_path", "ConvertResult", "Report", "FileReport", "Finding"]

_WHERE = {"convert_path": ".convert.engine", "convert_source": ".convert.pipeline",
          "ConvertResult": ".convert.pipeline", "Report": ".convert.report", "FileReport": ".convert.report",
          "Finding": ".convert.report"}

if TYPE_CHECKING:  # pragma: no cover
    from .convert.engine import convert_path
    from .convert.pipeline import ConvertResult, convert_source
    from .convert.report import FileReport, Finding, Report


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
