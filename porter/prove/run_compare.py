"""Judge two traces of ``jtport parity --run``: torch's, the port's, and torch's spread runs.

Every quantity (a loss, a module's output at the first step, its gradient, a parameter after the
first and after the last step, a parameter's first gradient) holds when

    max|port - torch| <= atol + rtol * max|torch| + ROUNDING_FACTOR * spread

where ``spread`` is torch's own float32 sensitivity: the largest distance, over the spread runs
(the same script from weights perturbed by one float32 rounding), of that quantity from torch's.
``rtol``/``atol`` are a floor for quantities no weight reaches (a flatten of the input data).
The divergence is named: the first loss that differs, the first module call (torch's call order)
whose output differs, or, walking back from the loss, the first output whose gradient differs,
with the class of that module and the file and line where each side defines it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from .common import compare
from .accuracy import ROUNDING_FACTOR

#: floor of the bound, for quantities torch's spread does not reach: a few float32 roundings
RTOL, ATOL = 1e-6, 1e-7


@dataclass
class Check:
    """One compared quantity."""

    group: str  # "loss", "forward", "backward", "param1", "paramN", "grad1"
    name: str
    ok: bool
    err: float
    scale: float
    spread: float
    bound: float
    reason: str = ""

    @property
    def rel(self) -> float:
        """The port's error relative to the quantity's scale."""
        return self.err / self.scale if self.scale > 0 else (0.0 if self.err == 0 else float("inf"))

    @property
    def own_rel(self) -> float:
        """Torch's own float32 error (its spread) relative to the scale."""
        return self.spread / self.scale if self.scale > 0 else 0.0


@dataclass
class Trace:
    """One side's ``trace.json`` and ``trace.npz``."""

    meta: dict
    arrays: Dict[str, np.ndarray]

    @classmethod
    def load(cls, folder: Path) -> "Trace":
        """Read the trace a tracer saved into ``folder``."""
        meta = json.loads((Path(folder) / "trace.json").read_text())
        with np.load(Path(folder) / "trace.npz") as z:
            arrays = {k: z[k] for k in z.files}
        return cls(meta, arrays)

    def group(self, prefix: str) -> Dict[str, np.ndarray]:
        """The arrays under ``prefix/``, by the rest of their name."""
        n = len(prefix) + 1
        return {k[n:]: v for k, v in self.arrays.items() if k.startswith(prefix + "/")}


@dataclass
class Verdict:
    """The outcome: every check, the named divergence, what could not be compared."""

    checks: List[Check] = field(default_factory=list)
    first_loss: Optional[Check] = None
    forward: Optional[dict] = None
    backward: Optional[dict] = None
    problems: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    torch_losses: List[float] = field(default_factory=list)
    port_losses: List[float] = field(default_factory=list)
    loss_spread: List[float] = field(default_factory=list)
    steps: int = 0

    @property
    def ok(self) -> bool:
        """Everything compared held and nothing was missing."""
        return not self.problems and all(c.ok for c in self.checks)

    def where(self) -> str:
        """One paragraph naming the place of the first difference ('' when all matched)."""
        parts = []
        if self.first_loss is not None:
            parts.append(f"first differing loss: backward call {self.first_loss.name}")
        for d in (self.forward, self.backward):
            if d:
                parts.append(f"first diverging {d['what']}: {d['call']} ({d['class']}, {d['site']}; "
                             f"the port's {d['port_site']}): {d['detail']}")
        return "\n".join(parts + self.problems)


def _check(group: str, name: str, got: np.ndarray, ref: np.ndarray, spreads: Sequence[np.ndarray],
           mask: Optional[np.ndarray] = None) -> Check:
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got, np.float64)
    if mask is not None and got.shape == ref.shape:
        got, ref = np.where(mask, got, 0.0), np.where(mask, ref, 0.0)
    c = compare(name, got, ref, 0.0, 0.0)
    spread = max((float(np.abs(np.asarray(s, np.float64) - ref).max(initial=0.0)) for s in spreads
                  if np.shape(s) == ref.shape), default=0.0)
    scale = float(np.abs(ref).max(initial=0.0)) if ref.size else 0.0
    bound = ATOL + RTOL * scale + ROUNDING_FACTOR * spread
    ok = c.reason == "" and c.max_abs_err <= bound
    return Check(group, name, ok, c.max_abs_err, scale, spread, bound, c.reason)


def _calls(names: Sequence[str]) -> Dict[str, List[str]]:
    by: Dict[str, List[str]] = {}
    for n in names:
        call = n.split("@", 1)[0] + "@" + n.split("@", 1)[1].split(".", 1)[0]
        by.setdefault(call, []).append(n)
    return by


def _site(trace: Trace, call: str) -> str:
    s = trace.meta["sites"].get(call)
    text = f"{s['file']}:{s['line']}" if s and s.get("file") else "(not in a source file)"
    owner = (s or {}).get("owner")
    if owner:
        text += f", attribute {owner['attribute']} of {owner['class']} at {owner['file']}:{owner['line']}"
    return text


def _divergence(what: str, call: str, checks: List[Check], torch: Trace, port: Trace) -> dict:
    bad = [c for c in checks if not c.ok] or checks
    site = torch.meta["sites"].get(call, {})
    return {"what": what, "call": call, "class": site.get("class", "?"), "site": _site(torch, call),
            "port_site": _site(port, call),
            "detail": "; ".join(f"{c.name}: max abs err {c.err:.3g} (rel {c.rel:.3g}), bound {c.bound:.3g}"
                                + (f" ({c.reason})" if c.reason else "") for c in bad[:2])}


def judge(torch: Trace, port: Trace, spreads: Sequence[Trace]) -> Verdict:
    """Compare the port's trace with torch's (module docstring); the verdict."""
    v = Verdict(torch_losses=list(torch.meta["losses"]), port_losses=list(port.meta["losses"]),
                steps=torch.meta["steps"])
    v.notes = list(dict.fromkeys(torch.meta["notes"] + port.meta["notes"]))
    tl, pl = v.torch_losses, v.port_losses
    if len(pl) != len(tl):
        v.problems.append(f"torch made {len(tl)} backward calls in {torch.meta['steps']} steps, the port "
                          f"{len(pl)} in {port.meta['steps']}")
    for i, (p, t) in enumerate(zip(pl, tl)):
        s = [np.asarray(sp.meta["losses"][i]) for sp in spreads if len(sp.meta["losses"]) > i]
        c = _check("loss", f"{i + 1} (step {torch.meta['loss_steps'][i]})", np.asarray(p), np.asarray(t), s)
        v.loss_spread.append(c.spread)
        v.checks.append(c)
        if not c.ok and v.first_loss is None:
            v.first_loss = c
    v.forward = _forward(v, torch, port, spreads)
    for group in dict.fromkeys(("grad1", "param1", f"param{torch.meta['steps']}")):
        want, got = torch.group(group), port.group(group)
        for name, ref in want.items():
            if name not in got:
                v.problems.append(f"{group}: {name} missing from the port's models")
                continue
            v.checks.append(_check(group, name, got[name], ref, [sp.group(group).get(name) for sp in spreads
                                                                   if name in sp.group(group)]))
        extra = sorted(set(got) - set(want))
        if extra:
            v.problems.append(f"{group}: the port's models have {', '.join(extra[:5])}, torch's do not")
    if any(not c.ok for c in v.checks if c.group in ("grad1", "param1")):
        # only then: the search locates a difference the parameters already showed (the whole
        # first step's gradients are compared through the parameters' own)
        v.backward = _backward(v, torch, port, spreads)
    return v


def _forward(v: Verdict, torch: Trace, port: Trace, spreads: Sequence[Trace]) -> Optional[dict]:
    want, got = torch.group("act"), port.group("act")
    by = _calls(want)
    first = None
    unmatched = []
    for call in torch.meta["act_order"]:
        checks = []
        if call.startswith("~") and not any(n in got for n in by.get(call, [])):
            unmatched.append(call)  # a module of no model (a transform) that the port runs as a plain callable
            continue
        for n in by.get(call, []):
            if n not in got:
                checks.append(Check("forward", n, False, float("inf"), 0.0, 0.0, 0.0, "the port made no such call"))
                continue
            checks.append(_check("forward", n, got[n], want[n], [sp.group("act")[n] for sp in spreads
                                                                  if n in sp.group("act")]))
        v.checks.extend(checks)
        if first is None and checks and not all(c.ok for c in checks):
            first = _divergence("module output (forward, first step)", call, checks, torch, port)
    if unmatched:
        kinds = sorted({c[1:].split("@")[0] for c in unmatched})
        v.notes.append(f"not compared: {len(unmatched)} calls of {', '.join(kinds)} (torch modules outside every "
                       "model, plain callables in the port: a transform); what they feed into is compared")
    return first


def _backward(v: Verdict, torch: Trace, port: Trace, spreads: Sequence[Trace]) -> Optional[dict]:
    """Walking back from the loss: the first output whose gradient differs (entries where torch's
    output is exactly zero skipped: a max-pool may route a gradient to any of tied zeros)."""
    want, got, acts = torch.group("actgrad"), port.group("actgrad"), torch.group("act")
    by = _calls(want)
    found = None
    for call in reversed(torch.meta["act_order"]):
        checks = []
        for n in by.get(call, []):
            if n not in got:
                continue
            live = acts[n] != 0 if n in acts and acts[n].shape == want[n].shape else None
            checks.append(_check("backward", f"grad of {n}", got[n], want[n],
                                 [sp.group("actgrad")[n] for sp in spreads if n in sp.group("actgrad")], live))
        v.checks.extend(checks)
        if found is None and checks and not all(c.ok for c in checks):
            found = _divergence("gradient (backward, first step, from the loss backwards)", call, checks, torch, port)
    return found


def table(v: Verdict) -> str:
    """The terminal report: the losses step by step, the groups' worst errors, the verdict."""
    lines = [f"{'call':>5} {'step':>5} {'torch loss':>16} {'port loss':>16} {'|diff|':>10} {'bound':>10}"]
    for c, t, p in zip([c for c in v.checks if c.group == "loss"], v.torch_losses, v.port_losses):
        call, step = c.name.split(" (step ")
        lines.append(f"{call:>5} {step.rstrip(')'):>5} {t:16.9g} {p:16.9g} {c.err:10.3g} {c.bound:10.3g}"
                     f"  {'ok' if c.ok else 'DIFFERS'}")
    groups = {"forward": "module outputs, first step", "backward": "output gradients, first step",
              "grad1": "parameter gradients, first step", "param1": "parameters after step 1"}
    for g in dict.fromkeys(c.group for c in v.checks if c.group != "loss"):
        cs = [c for c in v.checks if c.group == g]
        worst = max(cs, key=lambda c: c.err / c.bound if c.bound else float("inf"))
        bad = sum(not c.ok for c in cs)
        label = groups.get(g, f"parameters after step {g[5:]}")
        lines.append(f"{'ok  ' if not bad else 'FAIL'} {label}: {len(cs)} compared, {bad} differ; worst "
                     f"{worst.name}: rel err {worst.rel:.3g} (torch's own {worst.own_rel:.3g})")
    for n in v.notes:
        lines.append(f"note: {n}")
    lines.append("verdict: " + ("MATCH" if v.ok else "DIFFERENT\n" + v.where()))
    return "\n".join(lines)
