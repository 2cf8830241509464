"""Reading one checkpoint file on either side of a parity run: ``torch.save`` files and network pickles.

A ``torch.save`` file (zip, or the legacy format: its first pickle is torch's magic number) is
read with ``torch.load(weights_only=True)`` on the torch side and ``shims.load`` (the safe
reader) on the Jittor side.  Any other file is a *network pickle*: a plain ``pickle.dump`` of
objects holding torch modules (StyleGAN2-ADA's ``network-snapshot-*.pkl``).  The torch side reads
it with ``pickle.load`` (what upstream's ``legacy.load_network_pkl`` runs for such a file; the
spec's torch root is on ``sys.path`` for the classes it names), the Jittor side with
``shims.pickle.load`` (what converted code runs).  Both execute what the file names: a spec only
names files its user trusts.  In what comes back every module (at any depth of dicts, lists
and tuples) is replaced by its ``state_dict()``, so ``checkpoint_key = "G_ema"`` then names
the state dict of the snapshot's ``G_ema``.
"""
from __future__ import annotations

import io
import pickle
import pickletools
from pathlib import Path
from typing import Any, Callable

from porter.prove.common import map_nested

#: the first object of a legacy ``torch.save`` file
_TORCH_MAGIC = 0x1950a86a20f9469cfc6c


def is_network_pickle(path: Path) -> bool:
    """True when ``path`` is neither a torch zip checkpoint nor a legacy ``torch.save`` file."""
    with open(path, "rb") as f:
        head = f.read(32)
    if head.startswith(b"PK"):
        return False
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(head)):
            if op.name not in ("PROTO", "FRAME"):
                return not (op.name == "LONG1" and arg == _TORCH_MAGIC)
    except ValueError:  # not a pickle, or more than the head: shims.load/torch.load decide
        return False
    return False


def readers(path: Path) -> "tuple[str, str]":
    """How each side reads ``path`` (torch's, the port's), for messages and the row's note."""
    if is_network_pickle(path):
        return "pickle.load", "shims.pickle.load"
    return "torch.load(weights_only=True)", "shims.load"


def modules_as_state_dicts(obj: Any, is_module: Callable[[Any], bool]) -> Any:
    """``obj`` with every module inside dicts, lists and tuples replaced by its ``state_dict()``."""
    return map_nested(obj, is_module, lambda m: m.state_dict())


def read_torch(path: Path) -> Any:
    """Torch side: the file's content (network pickles: modules as their state dicts)."""
    # lazy: the torch side's; this module is imported by both interpreters
    import torch

    if not is_network_pickle(path):
        return torch.load(path, map_location="cpu", weights_only=True)
    with open(path, "rb") as f:
        obj = pickle.load(f)  # noqa: S301 - a network pickle runs its code, as upstream's loader
    return modules_as_state_dicts(obj, lambda m: isinstance(m, torch.nn.Module))


def read_port(path: Path) -> Any:
    """Jittor side: the file's content through ``shims`` (network pickles: modules as their
    state dicts)."""
    # lazy: the Jittor side's; this module is imported by both interpreters
    import jittor as jt

    import shims

    if not is_network_pickle(path):
        return shims.load(str(path))
    with open(path, "rb") as f:
        obj = shims.pickle.load(f)
    return modules_as_state_dicts(obj, lambda m: isinstance(m, jt.Module))
