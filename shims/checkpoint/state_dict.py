"""``load_state_dict``: copy a torch-keyed state dict into a Jittor module, like torch's."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple

import numpy as np

import jittor as jt

class IncompatibleKeys(NamedTuple):
    """torch's ``_IncompatibleKeys``: what ``load_state_dict`` could not match."""

    missing_keys: List[str]
    unexpected_keys: List[str]


def _to_array(value, key: str) -> np.ndarray:
    if isinstance(value, jt.Var):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (int, float, bool, list)):
        return np.asarray(value)
    raise TypeError(f"load_state_dict: value of '{key}' is a {type(value).__name__}, "
                    "expected a jt.Var or numpy array")


def _norm_except_dim0(v: np.ndarray) -> np.ndarray:
    flat = v.reshape(v.shape[0], -1).astype(np.float64)
    return np.sqrt((flat * flat).sum(1)).reshape((v.shape[0],) + (1,) * (v.ndim - 1))


def _map_keys(sd: Dict[str, Any], own: Dict[str, jt.Var]) -> Dict[str, Any]:
    """Rename checkpoint keys onto the module's own key space (see :func:`load_state_dict`)."""
    keys = list(sd)
    if keys and all(k.startswith("module.") for k in keys) and not any(k.startswith("module.") for k in own):
        sd = {k[len("module."):]: v for k, v in sd.items()}
    out: Dict[str, Any] = {}
    for k, v in sd.items():
        if ".parametrizations." in k or k.startswith("parametrizations."):
            # torch.nn.utils.parametrizations.weight_norm: <m>.parametrizations.<w>.original0/1
            head, _, tail = k.rpartition("parametrizations.")
            pname, _, which = tail.partition(".")
            suffix = {"original0": "_g", "original1": "_v"}.get(which)
            if suffix is not None and head + pname + suffix in own:
                out[head + pname + suffix] = v
                continue
        out[k] = v
    for k in list(out):
        # weight_g/weight_v in the file but a plain weight in the module: fold them (torch's formula)
        if k.endswith("_g") and k[:-2] + "_v" in out and k[:-2] in own and k not in own:
            g = _to_array(out.pop(k), k)
            v = _to_array(out.pop(k[:-2] + "_v"), k[:-2] + "_v")
            out[k[:-2]] = (v * (g / _norm_except_dim0(v))).astype(v.dtype)
    for k in list(own):
        # plain weight in the file, weight_g/weight_v in the module: split it
        if k.endswith("_g") and k[:-2] + "_v" in own and k[:-2] in out and k not in out:
            w = _to_array(out.pop(k[:-2]), k[:-2])
            out[k] = _norm_except_dim0(w).astype(w.dtype)
            out[k[:-2] + "_v"] = w
    return out


def load_state_dict(module, state_dict, strict: bool = True) -> IncompatibleKeys:
    """Copy ``state_dict`` into ``module`` in place; torch's ``Module.load_state_dict``.

    Torch behaviour reproduced: every module key (parameters and persistent buffers) is looked up;
    with ``strict=True`` a missing, unexpected or mis-shaped key raises ``RuntimeError`` listing
    them all ("Error(s) in loading state_dict for <Class>: ..."); with ``strict=False`` only shape
    mismatches raise.  Returns ``IncompatibleKeys(missing_keys, unexpected_keys)``.
    Key mapping: a DataParallel ``module.`` prefix is stripped; ``weight_g``/``weight_v`` and
    torch's ``parametrizations.weight.original0/1`` map onto the module's weight-norm keys (or
    are folded into a plain ``weight``); ``num_batches_tracked`` is ignored when the module has
    no such buffer (Jittor's own BatchNorm).  Values keep the module Vars' identity and dtype.
    """
    if not isinstance(module, jt.Module) and callable(getattr(module, "load_state_dict", None)):
        # not a module: an optimizer, an lr scheduler, a user's object (the converter cannot
        # always tell a receiver's type): its own load_state_dict, as the torch code meant
        return module.load_state_dict(state_dict)
    if not isinstance(state_dict, dict):
        raise TypeError(f"load_state_dict: expected a dict, got {type(state_dict).__name__}")
    own = module.state_dict()
    sd = _map_keys(dict(state_dict), own)
    missing = [k for k in own if k not in sd]
    unexpected = [k for k in sd if k not in own
                  and not (k.endswith("num_batches_tracked"))]
    mismatched = []
    for k, target in own.items():
        if k not in sd:
            continue
        arr = _to_array(sd[k], k)
        if tuple(arr.shape) != tuple(target.shape) and not (arr.size == 1 and target.numel() == 1):
            mismatched.append(f"size mismatch for {k}: copying a param with shape {tuple(arr.shape)} "
                              f"from checkpoint, the shape in current model is {tuple(target.shape)}.")
    errors = list(mismatched)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    # No jt.no_grad() here: an update made under no_grad turns the parameter stop_grad
    # (measured), and jt.array values carry no graph anyway.
    for k, target in own.items():
        if k in sd:
            arr = _to_array(sd[k], k).reshape(tuple(target.shape))
            target.update(jt.array(arr.astype(np.dtype(str(target.dtype)), copy=False)))
    jt.sync(list(own.values()))
    return IncompatibleKeys(missing, unexpected)
