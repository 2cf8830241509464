"""jtport's converter: PyTorch source in, Jittor source and a report out.

Public API:

* :func:`convert_source` -- one file's text;
* :func:`convert_path` -- a file or a directory tree (parallel, atomic in-place writes).
"""
from .engine import convert_path
from .pipeline import ConvertResult, convert_source
from .report import FileReport, Finding, Report

__version__ = "0.1.0"

__all__ = ["convert_source", "convert_path", "ConvertResult", "Report", "FileReport", "Finding"]
