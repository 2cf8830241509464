"""Torch checkpoints without torch: a safe ``.pth`` reader, a torch-readable writer, key mapping.

* :func:`load` reads files written by ``torch.save`` (zip format and the legacy
  ``_use_new_zipfile_serialization=False`` format) through a restricted unpickler that builds
  tensors, storages, numpy arrays, ``OrderedDict`` and plain containers/scalars only.  Any other
  global (``os.system``, ``builtins.eval``, a model class) is refused with
  :class:`ForbiddenGlobalError` before anything is called: ``jt.load`` on 1.3.11 unpickles
  without restriction and runs whatever a crafted file asks for.  What it promises, and how
  that is tested: ``docs/security.md``.
* :func:`save` writes the torch zip format, which ``torch.load(path, weights_only=True)`` reads.
* :func:`load_state_dict` copies a state dict into a module like torch's
  ``Module.load_state_dict(strict=...)``, mapping DataParallel's ``module.`` prefix, weight-norm
  keys (``weight_g``/``weight_v``, ``parametrizations.weight.original0/1``) and buffers.
"""
from __future__ import annotations

import io
import os

from .errors import CheckpointError, CheckpointLimitError, ForbiddenGlobalError
from .reader import read_checkpoint
from .state_dict import IncompatibleKeys, load_state_dict
from .writer import save

__all__ = ["load", "save", "load_state_dict", "CheckpointError", "CheckpointLimitError",
           "ForbiddenGlobalError", "IncompatibleKeys"]


def load(f, map_location=None, *, to: str = "jittor", weights_only=None, **_ignored):
    """Read a ``torch.save`` file (zip or legacy format) without torch, safely.

    ``f`` is a path or a binary file object (an open file, ``io.BytesIO``).
    Torch behaviour reproduced: ``torch.load(f, weights_only=True)`` — the same nested
    containers come back, each tensor as a ``jt.Var`` (``to="jittor"``, the default) or a numpy
    array (``to="numpy"``, bit-exact for every dtype); numpy arrays and scalars pickled inside
    the file come back as numpy, as torch returns them.  Views keep torch's values (offset and
    strided views into a shared storage are copied out).  bfloat16 tensors come back as float32
    (numpy has no bfloat16; the widening is exact).  With ``to="jittor"``, int64/float64 become
    int32/float32 (Jittor's ``auto_convert_64_to_32``).  ``map_location`` is accepted and ignored
    (Jittor decides placement globally).

    ``weights_only=False`` (trust the file) additionally loads objects of the program's own
    (``torch.save(model)``, ``torch.save([model, criterion, optimizer])``, a dataset cache) as
    torch's unpickler makes them: the class is imported by its path in the converted project,
    the object created with ``__new__`` and given its pickled ``__dict__``, its ``__init__``
    never called (:mod:`.trusted_objects`); a model torch itself saved is constructed with no
    arguments and given the file's parameters and buffers.  Nothing the file names is called.
    ``weights_only`` left unset is True, as in torch 2.6+, unless the environment says otherwise
    as torch reads it: ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` makes it False,
    ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` makes every load True.

    Raises :class:`CheckpointError` (a ``pickle.UnpicklingError``) naming the file for every
    failure: :class:`ForbiddenGlobalError` for a global outside the allow-list, before anything
    from the file runs; :class:`CheckpointLimitError` for a file that would need far more memory
    than its tensors (decompression bombs, oversized storages, huge expanded views).
    """
    if to not in ("jittor", "numpy"):
        raise ValueError(f"shims.load: to= must be 'jittor' or 'numpy', got {to!r}")
    weights_only = weights_only_default(weights_only)
    if isinstance(f, (str, os.PathLike)):
        where = os.fspath(f)
        with open(f, "rb") as fh:
            return _read(fh, where, to, weights_only)
    where = str(getattr(f, "name", None) or "<file object>")
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _read(f, where, to, weights_only)


def weights_only_default(weights_only):
    """``weights_only`` as torch 2.6+ decides it from the argument and the environment."""
    yes = ("1", "y", "yes", "true")
    force = os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in yes
    force_no = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in yes
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if weights_only is None:
        return not force_no
    return bool(weights_only)


def _read(fh, where: str, to: str, weights_only: bool):
    try:
        return read_checkpoint(fh, to == "jittor", trust=not weights_only)
    except CheckpointError as e:
        raise type(e)(f"{where}: {e}") from None
    except Exception as e:  # every failure is reported as this file's
        raise CheckpointError(f"{where}: not a readable torch checkpoint, corrupted or "
                              f"truncated ({type(e).__name__}: {e})") from e
