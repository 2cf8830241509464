"""The torch side's reference as the Jittor side reads it (:class:`Reference`), and what moves arrays
and weights between it and a port: :func:`to_var`, :func:`to_numpy`, :func:`load_weights`,
:func:`in_float64`, :func:`named_modules`.  Runs in ``.venv``.
"""
import contextlib
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Tuple, Union

import numpy as np

import shims
import jittor as jt

from porter.prove import common
from porter.prove.common import ROOT_NAME


Arrays = Dict[str, np.ndarray]
Forward = Callable[[Any, Mapping[str, Any]], Any]


class Reference:
    """The arrays a torch-side :func:`.torch_dump.dump` wrote, grouped by prefix."""

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"torch reference {self.path} does not exist (did the torch side run?)")
        with np.load(self.path, allow_pickle=False) as z:
            self.arrays: Arrays = {k: z[k] for k in z.files}

    def group(self, prefix: str) -> Arrays:
        """Arrays whose key starts with ``prefix``, keyed by the rest."""
        return {k[len(prefix):]: v for k, v in self.arrays.items() if k.startswith(prefix)}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self.arrays:
            raise KeyError(f"{self.path.name} has no array {key!r}")
        return self.arrays[key]

    def names(self, key: str) -> List[str]:
        """A saved list of names (``meta/trainable``, ``act_order``, ...); empty if absent."""
        return [str(x) for x in self.arrays[key]] if key in self.arrays else []

    @property
    def state_dict(self) -> Arrays:
        """The torch ``state_dict`` before anything ran."""
        return self.group("param/")

    @property
    def inputs(self) -> Arrays:
        """The inputs in their positional order."""
        got = self.group("input/")
        order = self.names("meta/input_order") or list(got)
        return {k: got[k] for k in order}

    @property
    def outputs(self) -> Arrays:
        """Flattened forward outputs."""
        return self.group("output/")

    @property
    def grads(self) -> Arrays:
        """Gradient of the loss for every trainable parameter."""
        return self.group("grad/")

    @property
    def grads64(self) -> Arrays:
        """The float64 gradients (``dump(..., float64_grads=True)``)."""
        return self.group("grad64/")

    @property
    def grad_spread(self) -> Dict[str, float]:
        """Torch's own float32 gradient error per parameter at starts one rounding apart
        (``dump(..., float32_spread=True)``: ``torch_dump.float32_error_spread``); empty if not saved."""
        return {n: float(v) for n, v in self.group("grad32err/").items()}

    @property
    def trainable(self) -> List[str]:
        """Names of the parameters torch trains (``requires_grad``)."""
        return self.names("meta/trainable") or list(self.grads)

    @property
    def steps(self) -> int:
        """How many optimizer steps were saved."""
        k = 0
        while any(key.startswith(f"step{k + 1}/") for key in self.arrays):
            k += 1
        return k

    def step(self, k: int) -> Arrays:
        """The ``state_dict`` after ``k`` optimizer steps."""
        return self.group(f"step{k}/param/")

    def step64(self, k: int) -> Arrays:
        """The float64 ``state_dict`` after ``k`` float64 optimizer steps (empty if none)."""
        return self.group(f"step{k}/param64/")

    def spread(self, k: int) -> Arrays:
        """How far torch's own ``k`` steps move each weight from a start perturbed by one float32
        rounding (``torch_dump.rounding_spread``; empty where the reference has float64 steps)."""
        return self.group(f"step{k}/spread/")

    @property
    def act_order(self) -> List[str]:
        """Submodule calls ``<qualname>@<call>`` in torch's execution order."""
        return self.names("act_order")

    @property
    def acts(self) -> Arrays:
        """Recorded submodule outputs (flattened names)."""
        return self.group("act/")

    @property
    def actgrads(self) -> Arrays:
        """Gradients of the loss with respect to the recorded submodule outputs."""
        return self.group("actgrad/")


def to_var(a: np.ndarray) -> jt.Var:
    """A fresh Jittor Var from a reference array (float64 becomes float32: Jittor's rule)."""
    return jt.array(np.ascontiguousarray(a))


def to_numpy(v: Any) -> np.ndarray:
    """A numpy copy of a Var (or array-like)."""
    if isinstance(v, jt.Var):
        if v.dtype in (jt.float16, getattr(jt, "bfloat16", jt.float16)):
            v = v.float32()
        return v.numpy().copy()
    return np.asarray(v)


@contextlib.contextmanager
def in_float64(model: Any):
    """Run ``model`` in float64 inside the block: its parameters are cast to float64 (and back
    to their dtypes afterwards) and Jittor keeps numpy float64 arrays float64
    (``auto_convert_64_to_32`` off).  For a port whose float32 results are too ill-conditioned
    to compare: in float64 the same algorithm's rounding is ~1e9 times smaller."""
    params = list(model.parameters())
    dtypes = [p.dtype for p in params]
    with jt.flag_scope(auto_convert_64_to_32=0):
        for p in params:
            p.assign(p.float64())
        try:
            yield
        finally:
            for p, dtype in zip(params, dtypes):
                p.assign(p.cast(dtype))


def flatten(obj: Any, prefix: str) -> List[Tuple[str, jt.Var]]:
    """The Vars inside an output (same names as :func:`.torch_dump.flatten`)."""
    return common.flatten(obj, prefix, lambda x: isinstance(x, jt.Var))


def load_weights(model: Any, state: Mapping[str, np.ndarray]) -> None:
    """Load a torch ``state_dict`` (numpy arrays) into a Jittor model through ``shims``, strictly:
    a missing, unexpected or wrongly shaped key is an error."""
    shims.load_state_dict(model, dict(state), strict=True)


def named_modules(model: Any) -> List[Tuple[str, Any]]:
    """Every module once, under its first name (torch's ``named_modules`` convention);
    the model itself is :data:`~.common.ROOT_NAME`."""
    seen, out = set(), []
    for name, m in model.named_modules():
        if id(m) in seen:
            continue
        seen.add(id(m))
        out.append((name or ROOT_NAME, m))
    return out
