"""Where the parity harness keeps its files, and what a torch-side process may import.

In a jtport checkout (``porter/`` next to ``pyproject.toml``: a source tree, or an editable install) the workspace
is the checkout: ``build/parity/`` and ``.venv-torch/`` there, as ``make`` builds them, and a
torch-side process gets the checkout on ``PYTHONPATH`` (its scripts import ``parity_tests``,
``models_ref`` and ``porter.prove``).  An installed jtport (a wheel in ``site-packages``) works
in the current directory instead, and a torch-side process sees only the ``porter`` package:
the rest of this environment's ``site-packages`` (its numpy, Jittor) must not shadow the torch
interpreter's own.

Imported by both sides (``.venv`` and ``.venv-torch``): standard library only.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator, Optional

PACKAGE = Path(__file__).resolve().parents[1]  # the ``porter`` package folder


def _checkout(root: Path) -> Optional[Path]:
    return root if (root / "pyproject.toml").is_file() else None


#: The jtport checkout this ``porter`` runs from, or None for an installed jtport.
CHECKOUT: Optional[Path] = _checkout(PACKAGE.parent)
#: Where ``build/parity`` and ``.venv-torch`` are looked for.
ROOT: Path = CHECKOUT or Path.cwd()


def default_torch_python() -> str:
    """``$JTPORT_TORCH_PYTHON``, else the workspace's ``.venv-torch`` interpreter."""
    return os.environ.get("JTPORT_TORCH_PYTHON") or str(ROOT / ".venv-torch" / "bin" / "python")


@contextlib.contextmanager
def torch_pythonpath() -> Iterator[str]:
    """The ``PYTHONPATH`` of a torch-side process, valid inside the ``with`` block: the checkout,
    or (installed) a temporary folder holding only a link to the ``porter`` package."""
    if CHECKOUT is not None:
        yield str(CHECKOUT)
        return
    with tempfile.TemporaryDirectory(prefix="jtport-torchpath-") as tmp:
        os.symlink(PACKAGE, os.path.join(tmp, "porter"), target_is_directory=True)
        yield tmp


def torch_env(pythonpath: str) -> dict:
    """This process's environment for a torch-side process: no ``PYTHON*`` variables of this
    interpreter, ``pythonpath`` and a fixed hash seed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = pythonpath
    env["PYTHONHASHSEED"] = "0"
    return env
