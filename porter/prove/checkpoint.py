"""A spec's ``checkpoint``: both sides load the same file the upstream torch code wrote.

The torch side (``.venv-torch``) reads it with ``torch.load(weights_only=True)`` and loads it
into the spec's torch model, strictly, before anything is dumped (:func:`load_torch`).  The
Jittor side reads the *same file* through ``shims.load`` (the safe reader converted code uses,
never an unrestricted unpickler) and loads it into the converted model with
``shims.load_state_dict`` (:func:`load_port`); its weights then come from the file, not from
the torch side's ``.npz``.  :func:`check_port` adds the row that proves both loads agree.

``checkpoint_key`` is a dotted path into the loaded object, for files that hold several state
dicts (HiSD's ``{'gen': ..., 'gen_test': ...}``, StarGAN v2's ``{'generator': ...}``).  A part
that names a key whole (a state-dict key with dots) is taken before splitting; a digit indexes
a list.  A spec may name one file per part of the model instead (``spec.checkpoints``: MCCNet
saves its decoder and MCC module apart, and its VGG comes from another file): each loads,
strictly, into its submodule or factory argument (:func:`~.spec.part_of`) on both sides.
Every failure is a :class:`~.spec.SpecError` naming the spec, the key and the file.
This module imports neither torch nor Jittor at the top: both sides use it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from porter.prove.checkpoint_files import read_port, read_torch, readers
from porter.prove.spec import CheckpointFile, Spec, SpecError, part_of

#: Names of torch buffers that the converted model has no twin of (Jittor's own BatchNorm).
TORCH_ONLY = ("num_batches_tracked",)


def _where(spec: Spec, cf: CheckpointFile) -> str:
    return f"{spec.path}: {cf.describe()}"


def _keys(obj: Mapping) -> str:
    names = [repr(k) for k in list(obj)[:12]]
    return "{" + ", ".join(names) + (", ..." if len(obj) > 12 else "") + "}"


def _step(obj: Any, rest: str, where: str, seen: str) -> Tuple[Any, str, str]:
    """One step of the key path: the value, the path left, the path followed so far."""
    at = f"at {seen!r}" if seen else "at the top level"
    if isinstance(obj, Mapping):
        part = rest if rest in obj else rest.split(".", 1)[0]
        if part not in obj:
            raise SpecError(f"{where}: no key {part!r} {at}; the file holds {_keys(obj)} there")
    elif isinstance(obj, (list, tuple)):
        part = rest.split(".", 1)[0]
        if not (part.isdigit() and int(part) < len(obj)):
            raise SpecError(f"{where}: {at} is a {type(obj).__name__} of {len(obj)}, "
                            f"{part!r} is not an index of it")
    else:
        raise SpecError(f"{where}: {at} is a {type(obj).__name__}, which has no key {rest!r}")
    value = obj[part] if isinstance(obj, Mapping) else obj[int(part)]
    return value, rest[len(part) + 1:], f"{seen}.{part}" if seen else part


def state_dict_of(obj: Any, spec: Spec, cf: CheckpointFile, is_tensor: Callable[[Any], bool]) -> Dict[str, Any]:
    """The state dict at ``cf.key`` inside the loaded ``obj`` (all of it without a key): a
    mapping of names to tensors, else a SpecError saying what the file holds."""
    where = _where(spec, cf)
    rest, seen = cf.key or "", ""
    while rest:
        obj, rest, seen = _step(obj, rest, where, seen)
    what = f"the value at {seen!r}" if seen else "the file"
    if not isinstance(obj, Mapping) or not obj:
        kind = "empty" if isinstance(obj, Mapping) else f"a {type(obj).__name__}"
        raise SpecError(f"{where}: {what} is {kind}, not a state dict")
    bad = [k for k, v in obj.items() if not (isinstance(k, str) and is_tensor(v))]
    if bad:
        nested = [k for k in obj if isinstance(obj[k], (Mapping, list, tuple))]
        hint = (f"; it holds {_keys(obj)}: set checkpoint_key to the entry with the model's weights"
                if nested else "")
        raise SpecError(f"{where}: {what} is not a state dict (its entry {bad[0]!r} "
                        f"holds a {type(obj[bad[0]]).__name__}, not a tensor){hint}")
    return dict(obj)


def require_file(spec: Spec) -> List[Path]:
    """The checkpoint files (a SpecError naming the spec and the path of one that is not a file)."""
    for cf in spec.checkpoints:
        if not cf.file.is_file():
            raise SpecError(f"{_where(spec, cf)}: no such file")
    return [cf.file for cf in spec.checkpoints]


def fingerprint(spec: Spec) -> bytes:
    """What the torch reference depends on of the checkpoint: each file's part, path, key and
    content hash (empty without a checkpoint; a missing file is hashed as missing, reported
    when loaded)."""
    if not spec.checkpoints:
        return b""
    h = hashlib.sha256()
    for cf in spec.checkpoints:
        h.update(f"{cf.part}\0{cf.file}\0{cf.key}\0".encode())
        if cf.file.is_file():
            with open(cf.file, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    return h.digest()


def load_torch(spec: Spec, model: Any) -> None:
    """Torch side: for each checkpoint file, ``torch.load(weights_only=True)``, follow the
    key, ``load_state_dict`` (strict) into the spec's torch model or the part it names."""
    # lazy: the torch side's; this module is imported by both interpreters
    import torch

    require_file(spec)
    for cf in spec.checkpoints:
        path = cf.file
        try:
            obj = read_torch(path)
        except Exception as e:  # noqa: BLE001 - torch raises many kinds for an unreadable file
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise SpecError(f"{_where(spec, cf)}: {readers(path)[0]} cannot read it: "
                            f"{type(e).__name__}: {first}") from None
        state = state_dict_of(obj, spec, cf, lambda v: isinstance(v, torch.Tensor))
        target = part_of(spec, model, cf.part, "torch")
        try:
            target.load_state_dict(state)
        except RuntimeError as e:
            raise SpecError(f"{_where(spec, cf)}: the torch model {type(target).__name__} does not "
                            f"load it: {e}") from None


def load_port(spec: Spec, model: Any) -> None:
    """Jittor side: for each checkpoint file, ``shims.load`` (the safe reader), follow the
    key, ``shims.load_state_dict`` (strict, torch's semantics) into the converted model or the
    part it names.  A state dict that does not fit raises RuntimeError naming the file and the
    missing and unexpected keys."""
    # lazy: the Jittor side's; this module is imported by both interpreters
    import numpy as np
    import jittor as jt
    import shims

    require_file(spec)
    for cf in spec.checkpoints:
        path = cf.file
        try:
            obj = read_port(path)
        except shims.CheckpointError as e:  # names the file and why, already
            raise SpecError(f"{_where(spec, cf)}: {readers(path)[1]} cannot read it: {e}") from None
        except Exception as e:  # noqa: BLE001 - a network pickle runs the code it names
            raise SpecError(f"{_where(spec, cf)}: {readers(path)[1]} cannot read it: "
                            f"{type(e).__name__}: {e}") from None
        state = state_dict_of(obj, spec, cf, lambda v: isinstance(v, (jt.Var, np.ndarray)))
        try:
            shims.load_state_dict(part_of(spec, model, cf.part, "jittor"), state, strict=True)
        except RuntimeError as e:
            raise RuntimeError(f"{cf.describe()}: {e}") from None


def check_port(spec: Spec, model: Any, reference: Path, results: Path) -> Tuple[Any, Optional[Dict[str, Any]]]:
    """Load the checkpoint into the converted ``model`` (:func:`load_port`) and compare every
    parameter and buffer it then holds with the torch model's after its own load (the
    reference's ``param/``): exact for float32 data.  Returns the ``checkpoint`` row and the
    port's weights (numpy, by name) for the later checks; None weights when the load failed."""
    # lazy: the Jittor side's (model imports Jittor); this module is imported by both interpreters
    from porter.prove.reference import Reference, to_numpy
    from porter.prove.tolerance import compare_sets, make_row
    from porter.prove.results import Row, record

    suite = spec.name
    try:
        load_port(spec, model)
    except RuntimeError as e:  # key or layout mismatch: a failed row naming the file and keys
        detail = f"{spec.path}: the converted {type(model).__name__} does not load it: {e}"
        return record(Row(suite, "checkpoint", "failed", detail=detail), results), None
    got = {k: to_numpy(v) for k, v in model.state_dict().items()}
    ref = {k: v for k, v in Reference(reference).state_dict.items()
           if k in got or not k.endswith(TORCH_ONLY)}
    # Jittor keeps float64/int64 as float32/int32 (auto_convert_64_to_32): compare in its dtype
    ref = {k: (v.astype(got[k].dtype) if k in got and v.dtype != got[k].dtype else v) for k, v in ref.items()}
    comps = compare_sets(got, ref, 0.0, 0.0, "weights")
    files = ", ".join(f"{cf.file}" + (f" [{cf.key}]" if cf.key else "") + (f" -> {cf.part}" if cf.part else "")
                      for cf in spec.checkpoints)
    used = [readers(cf.file) for cf in spec.checkpoints]
    torch_reader, port_reader = ("/".join(dict.fromkeys(r[i] for r in used)) for i in (0, 1))
    note = f"loaded {files} through {port_reader}, compared with torch's after {torch_reader}"
    return make_row(suite, "checkpoint", comps, note=note, results=results), got
