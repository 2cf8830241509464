"""The divergence search: on a failed check, every submodule of the port is hooked and the pass is run
again; :func:`first_diverging` names the first submodule call (in completion order, innermost first)
whose output differs from torch's recorded one, :func:`first_diverging_gradient` the same for
gradients.  Runs in ``.venv``.
"""
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

import jittor as jt

from porter.prove import common
from porter.prove.common import Comparison, compare
from porter.prove.reference import Reference, flatten, named_modules, to_numpy


Arrays = Dict[str, np.ndarray]
Forward = Callable[[Any, Mapping[str, Any]], Any]


class ActivationTap:
    """Record every submodule call's output, in execution order, on a Jittor model.

    Jittor's ``register_forward_hook`` has one slot per module and no handle, so instead each
    module's ``execute`` is shadowed by an instance attribute for the duration of the ``with``
    block and restored afterwards (any hook the model set itself stays untouched).
    ``records`` keeps each output itself (gradients are taken with respect to it); ``arrays``
    gives the values it had when the call returned, as the torch side copies them: a later
    in-place op on it (StyleGAN2-ADA's resnet blocks do ``y = self.skip(x); ...; y.add_(x)``)
    rebinds a Jittor Var to the new value, which a torch-side copy never sees.
    """

    def __init__(self, model: Any):
        self.model = model
        self.records: List[Tuple[str, Any]] = []
        self._values: List[Tuple[str, Any]] = []
        self._calls: Dict[str, int] = {}
        self._patched: List[Tuple[Any, Any]] = []

    def _wrap(self, name: str, module: Any) -> Callable:
        inner = module.execute

        def execute(*args, **kw):
            out = inner(*args, **kw)
            k = self._calls.get(name, 0)
            self._calls[name] = k + 1
            self.records.append((f"{name}@{k}", out))
            # clone() is lazy and keeps this value even if the Var is later assigned to
            self._values.append((f"{name}@{k}", [(n, v.clone() if isinstance(v, jt.Var) else v)
                                                 for n, v in flatten(out, f"{name}@{k}")]))
            return out
        return execute

    def __enter__(self) -> "ActivationTap":
        for name, m in named_modules(self.model):
            self._patched.append((m, m.__dict__.get("execute")))
            m.execute = self._wrap(name, m)
        return self

    def __exit__(self, *exc) -> None:
        for m, previous in reversed(self._patched):
            if previous is None:
                del m.__dict__["execute"]
            else:
                m.execute = previous
        self._patched.clear()

    def arrays(self) -> Tuple[Arrays, List[str]]:
        """Flattened outputs by name and the ordered list of ``<qualname>@<call>`` keys."""
        acts: Arrays = {}
        order: List[str] = []
        for key, flat in self._values:
            order.append(key)
            for name, v in flat:
                acts[name] = to_numpy(v)
        return acts, order


@dataclass
class Divergence:
    """The first submodule call whose output differs from torch's."""

    call: str
    comparisons: List[Comparison]
    missing: List[str]
    what: str = "submodule"
    note: str = ""

    @property
    def qualname(self) -> str:
        """The submodule's qualified name (``<root>`` for the model itself)."""
        return self.call.rsplit("@", 1)[0]

    def describe(self) -> str:
        """A readable account: where, shapes, error; calls Jittor never made."""
        worst = [c for c in self.comparisons if not c.ok] or self.comparisons
        text = f"first diverging {self.what}: {self.call} -> " + "; ".join(c.describe() for c in worst[:3])
        if self.missing:
            text += (f" (before it, {len(self.missing)} torch call(s) not made by the port: "
                     f"{', '.join(self.missing[:5])})")
        if self.note:
            text += f" ({self.note})"
        return text


def first_diverging(model: Any, run: Callable[[], Any], ref: Reference, rtol: float, atol: float
                    ) -> Optional[Divergence]:
    """Hook every submodule, ``run()`` the forward pass, and return the first call (in torch's
    execution order) whose output differs beyond ``atol + rtol * max|ref|``; None if all match.

    A submodule call torch made but the port did not is listed; if no compared output differs,
    the first such missing call is the divergence."""
    order = ref.act_order
    if not order:
        raise ValueError(f"{ref.path.name} has no recorded activations (dump(record_acts=True))")
    with ActivationTap(model) as tap:
        run()
    got, _ = tap.arrays()
    ref_acts = ref.acts
    by_call: Dict[str, List[str]] = {}
    for name in ref_acts:
        by_call.setdefault(common.act_call(name), []).append(name)
    missing: List[str] = []
    for call in order:
        names = by_call.get(call, [])
        if not names:
            continue  # the call returned no tensor
        if not any(n in got for n in names):
            missing.append(call)
            continue
        comps = [compare(n, got[n], ref_acts[n], rtol, atol) if n in got else
                 Comparison(n, False, float("inf"), float("inf"), (), tuple(ref_acts[n].shape), "missing in port")
                 for n in names]
        if not all(c.ok for c in comps):
            return Divergence(call, comps, missing)
    if missing:
        return Divergence(missing[0], [], missing[1:])
    return None


def first_diverging_gradient(model: Any, loss: Callable[[], Any], ref: Reference, rtol: float,
                             atol: float) -> Optional[Divergence]:
    """Hook every submodule, compute ``loss()``, and return the first submodule call, walking
    back from the loss (reverse torch execution order), whose output's gradient differs from
    torch's; None if all match.

    The call it names is where the backward pass first goes wrong: every later call's output
    gradient still matched, so the culprit is the backward of what lies between this output and
    the loss.  Every entry is compared, ties included: the port's max pools route a window's
    gradient to the same single element as torch's (the first maximum), so a tied maximum that
    receives a different gradient is a real divergence, and it does reach parameters."""
    ref_grads = ref.actgrads
    if not ref_grads:
        return None
    with ActivationTap(model) as tap:
        value = loss()
    by_name: Dict[str, Any] = {}
    for key, out in tap.records:
        by_name.update(flatten(out, key))
    names = [n for n in ref_grads if n in by_name]
    unique: Dict[int, Any] = {id(by_name[n]): by_name[n] for n in names}
    grads = dict(zip(unique, jt.grad(value, list(unique.values())))) if unique else {}
    by_call: Dict[str, List[str]] = {}
    for n in names:
        by_call.setdefault(common.act_call(n), []).append(n)
    order = ref.act_order
    for i in range(len(order) - 1, -1, -1):
        call = order[i]
        comps = []
        for n in by_call.get(call, []):
            comps.append(compare(f"grad of {n}", to_numpy(grads[id(by_name[n])]), ref_grads[n], rtol, atol))
        if comps and not all(c.ok for c in comps):
            after = next((c for c in order[i + 1:] if c in by_call), None)
            note = (f"gradients of later outputs match: look at the backward between it and {after}"
                    if after else "look at the loss's backward")
            return Divergence(call, comps, [], what="gradient (from the loss backwards)", note=note)
    return None
