"""Jittor side of the model-parity harness (:class:`ModelParity`): compare a converted model against torch's ``.npz``.

Runs in ``.venv``.  A torch-side script (:mod:`.torch_dump`) saved the reference; here the
converted Jittor model gets the torch weights through ``shims.load_state_dict`` (strict), runs
the same inputs and is compared output by output, gradient by gradient, step by step.  Every
check writes a row to ``build/parity/results/<suite>.json`` (:mod:`.results`).

When a check fails, every submodule of the Jittor model is hooked and the forward pass is run
again: :func:`porter.prove.divergence.first_diverging` names the first submodule call whose output
differs from torch's recorded one.  The reference reader is :mod:`.reference`, the judges
:mod:`.tolerance`, the shared random draws :mod:`.random_patches`.

Usage in a test::

    ref = Reference(run_torch(script, "mymodel") / "case.npz")    # porter.prove.reference
    p = ModelParity("mymodel", ref, converted_module.Net(...))
    require(p.check_forward("forward", rtol=1e-5, atol=1e-6))
    require(p.check_grads("grads", rtol=1e-4, atol=1e-6))
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

import shims
import jittor as jt

from porter.prove.common import Comparison, compare
from porter.prove.results import RESULTS, Row
from porter.prove.divergence import Divergence, first_diverging, first_diverging_gradient
from porter.prove.reference import Reference, flatten, in_float64, load_weights, to_numpy, to_var
from porter.prove.tolerance import (FLOAT32_ZERO, ROUNDING_FACTOR, compare_sets, float64_note, make_row,
                                    within_torch_rounding, worst)
from porter.prove import accuracy

Arrays = Dict[str, np.ndarray]
Forward = Callable[[Any, Mapping[str, Any]], Any]


def default_forward(model: Any, inputs: Mapping[str, Any]) -> Any:
    """Call the model with the inputs as positional arguments, in order."""
    return model(*inputs.values())


def make_optimizer(spec: Mapping[str, Any], params: List[jt.Var]) -> Any:
    """The Jittor optimizer for a torch-side spec ``{"name": ..., **kwargs}``: ``shims.optim``'s
    torch-faithful class when it has one, else ``jittor.optim``'s."""
    kw = dict(spec)
    name = str(kw.pop("name")).lower()
    for ns in (shims.optim, jt.optim):
        for attr in dir(ns):
            cls = getattr(ns, attr)
            if attr.lower() == name and isinstance(cls, type):
                return cls(params, **kw)
    raise ValueError(f"make_optimizer: neither shims.optim nor jittor.optim has {spec['name']!r}")


def _step_comps(k: int, state: Mapping[str, Any], ref_k: Mapping[str, np.ndarray], loose: Mapping[str, Any],
                lr: float, rtol: float, atol: float, spread: Optional[Mapping[str, np.ndarray]] = None,
                ratios: Optional[List[float]] = None) -> List[Comparison]:
    """Step ``k``'s weights vs torch's, element by element.  Elements ``loose[name]`` marks (a
    boolean mask, or True for the whole weight: a gradient only rounding decides) must be
    within the optimizer's move so far, ``2 * k * lr + atol``; the others within ``atol + rtol *
    max|ref|``, plus :data:`ROUNDING_FACTOR` times the array's largest ``spread`` where the
    reference measured torch's own (``step<k>/spread/``).  Appends to ``ratios`` each array's
    error over its spread where the spread was needed."""
    spread = spread or {}
    comps = []
    for name in sorted(ref_k):
        got, ref = to_numpy(state[name]), np.asarray(ref_k[name])
        plain = compare(f"step{k}/{name}", got, ref, rtol, atol)
        if (name not in loose and name not in spread) or plain.max_abs_err == float("inf"):
            comps.append(plain)  # shapes or non-finite values differ: nothing to widen
            continue
        mask = np.broadcast_to(np.asarray(loose.get(name, False), bool), ref.shape)
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        firm, scale = ~mask, float(np.abs(ref).max()) if ref.size else 0.0
        room = float(np.abs(spread[name][firm]).max()) if name in spread and firm.any() else 0.0
        firm_err = float(err[firm].max()) if firm.any() else 0.0
        ok = (firm_err <= ROUNDING_FACTOR * room + atol + rtol * scale
              and (not mask.any() or float(err[mask].max()) <= 2 * k * lr + atol))
        if ratios is not None and room > 0 and firm_err > atol + rtol * scale:
            ratios.append(firm_err / room)
        reason = f"{firm_err / room:.3g}x torch's own spread {room:.3g}" if room > 0 else ""
        comps.append(Comparison(plain.name, ok, plain.max_abs_err, plain.max_rel_err, plain.got_shape,
                                plain.ref_shape, reason))
    return comps


class ModelParity:
    """Compare one converted model against one torch reference ``.npz``.

    ``forward(model, inputs)`` runs the model (default: inputs as positional arguments);
    ``loss(outputs, inputs)`` gives the scalar loss (default: the reference's weighted sum,
    matching the torch side's default).  Each check reloads the torch weights first, so checks
    are independent of each other and of order.  Rows go to ``results`` (the harness's own
    self-test sends its deliberately failing cases elsewhere).  ``weights`` replaces the
    reference's ``state_dict`` as the weights every check starts from (a spec's checkpoint,
    loaded by the port itself: :mod:`.checkpoint`).
    """

    def __init__(self, suite: str, ref: Union[Reference, str, Path], model: Any, *,
                 forward: Forward = default_forward,
                 loss: Optional[Callable[[Any, Mapping[str, Any]], Any]] = None,
                 results: Path = RESULTS, weights: Optional[Mapping[str, np.ndarray]] = None):
        self.suite = suite
        self.ref = ref if isinstance(ref, Reference) else Reference(ref)
        self.model = model
        self.forward = forward
        self.loss = loss
        self.results = results
        self._float64: Optional[Tuple[Dict[str, np.ndarray], np.ndarray, Dict[str, np.ndarray]]] = None
        self._float64_steps: Optional[List[Dict[str, np.ndarray]]] = None
        self.weights = dict(weights) if weights is not None else self.ref.state_dict
        self.reset()

    def reset(self) -> None:
        """Load the weights every check starts from (torch's, or the given ``weights``)."""
        load_weights(self.model, self.weights)

    def inputs(self) -> Dict[str, jt.Var]:
        """Fresh Vars of the reference inputs."""
        return {k: to_var(v) for k, v in self.ref.inputs.items()}

    def run(self) -> Any:
        """One forward pass on the reference inputs."""
        return self.forward(self.model, self.inputs())

    def loss_of(self, outputs: Any, inputs: Mapping[str, Any], dtype: Any = np.float32) -> jt.Var:
        """The scalar loss of a forward pass (same definition as the torch side; the default
        loss's weights in ``dtype``)."""
        if self.loss is not None:
            return self.loss(outputs, inputs)
        weights = self.ref.group("lossw/")
        total = None
        for name, v in flatten(outputs, "out"):
            if name not in weights:
                raise KeyError(f"output {name!r} has no loss weight in {self.ref.path.name} "
                               f"(torch outputs: {sorted(weights)})")
            if not str(v.dtype).startswith("float"):
                continue
            term = (v * to_var(weights[name].astype(dtype))).sum()
            total = term if total is None else total + term
        if total is None:
            raise ValueError("the model returned no floating-point output")
        return total

    def diagnose(self, rtol: float, atol: float) -> Optional[Divergence]:
        """The first diverging submodule of the forward pass (with fresh torch weights)."""
        self.reset()
        return first_diverging(self.model, self.run, self.ref, rtol, atol)

    def check_forward(self, case: str, rtol: float, atol: float) -> Row:
        """Outputs vs torch; on mismatch, name the first diverging submodule.  As for gradients
        (:meth:`check_grads`), a float32 difference the float64 comparison clears passes, saying
        so (MCCNet's total-variation loss sums differences of a near-constant image)."""
        self.reset()
        got = dict(flatten(self.run(), "out"))
        comps = compare_sets(got, self.ref.outputs, rtol, atol, "output")
        noisy, ratio = accuracy.noisier_than_torch(got, self.ref.outputs, self.ref.group("output64/"), list(got))
        if noisy:
            note = f"float32 error up to {ratio:.3g}x torch's own (both against torch's float64 outputs)"
            return make_row(self.suite, case, noisy + comps, None, note, self.results)
        if not all(c.ok for c in comps) and self.ref.group("output64/"):
            outs64 = self.float64_run()[0]
            comps64 = compare_sets({n: outs64[n] for n in self.ref.group("output64/") if n in outs64},
                                   self.ref.group("output64/"), rtol, atol, "output")
            if comps64 and all(c.ok for c in comps64):
                note = float64_note("outputs", comps, comps64)
                return make_row(self.suite, case, comps64, None, note, self.results)
        if all(c.ok for c in comps):
            # said on a passing row, as for gradients: a per-term proof reports its forward's accuracy
            note = f"float32 error at most {ratio:.3g}x torch's own (both against float64)" if ratio is not None else ""
            return make_row(self.suite, case, comps, None, note, self.results)
        return make_row(self.suite, case, comps, self.diagnose(rtol, atol), results=self.results)

    def float64_run(self) -> Tuple[Dict[str, np.ndarray], np.ndarray, Dict[str, np.ndarray]]:
        """The port's outputs, loss and trainable-parameter gradients with both the weights and
        the inputs in float64 (computed once, then cached).

        Run it before anything float32 (:meth:`float64_first`): measured with Jittor 1.3.11,
        after a float32 backward of upstream MCCNet's ``Net`` a float64 backward of the same
        graph in the same process returned zero decoder gradients for a loss whose value was
        right; run first, it agrees with torch's float64 gradients to 3e-8."""
        if self._float64 is None:
            if "loss64" not in self.ref.arrays:
                raise KeyError(f"{self.ref.path.name} has no float64 reference (dump(..., float64_grads=True))")
            self.reset()
            params = self._params()
            names = self.ref.trainable
            with in_float64(self.model):
                inputs = {k: to_var(v.astype(np.float64) if v.dtype == np.float32 else v)
                          for k, v in self.ref.inputs.items()}
                outputs = self.forward(self.model, inputs)
                value = self.loss_of(outputs, inputs, np.float64)
                grads = jt.grad(value, [params[n] for n in names])
                self._float64 = ({n: to_numpy(v) for n, v in flatten(outputs, "out")}, to_numpy(value),
                                 {n: to_numpy(g) for n, g in zip(names, grads)})
        return self._float64

    def rounding_level_gradients(self) -> set:
        """Trainable parameters whose float64 gradient (torch's) is zero up to rounding: below
        1e-9 of the largest float64 gradient of any parameter, but not exactly zero (float64 rounding of the sums
        behind a gradient is ~1e-16 relative; mathematically zero gradients, such as a bias
        followed by an instance norm, come out at ~1e-14 of the scale)."""
        g64 = self.ref.grads64
        scale = max((float(np.abs(g).max()) for g in g64.values() if g.size), default=0.0)
        # exactly zero: a parameter the loss does not use, which no optimizer moves
        return {n for n, g in g64.items() if g.size and 0.0 < float(np.abs(g).max()) <= 1e-9 * scale}

    def float64_steps(self, optimizer: Mapping[str, Any]) -> List[Dict[str, np.ndarray]]:
        """The state after each of the reference's optimizer steps, in float64 (weights,
        inputs and optimizer), computed once; empty if the reference has no float64 steps."""
        if self._float64_steps is None:
            self._float64_steps = []
            if self.ref.steps and self.ref.step64(1):
                self.reset()
                params = self._params()
                with in_float64(self.model):
                    opt = make_optimizer(optimizer, [params[n] for n in self.ref.trainable])
                    for _ in range(self.ref.steps):
                        inputs = {k: to_var(v.astype(np.float64) if v.dtype == np.float32 else v)
                                  for k, v in self.ref.inputs.items()}
                        opt.step(self.loss_of(self.forward(self.model, inputs), inputs, np.float64))
                        self._float64_steps.append({n: to_numpy(v) for n, v in self.model.state_dict().items()})
        return self._float64_steps

    def float64_first(self, optimizer: Optional[Mapping[str, Any]] = None) -> None:
        """Compute :meth:`float64_run` (and, given the optimizer spec, :meth:`float64_steps`)
        now, if the reference has float64 arrays."""
        if "loss64" in self.ref.arrays:
            self.float64_run()
            if optimizer is not None:
                self.float64_steps(optimizer)

    def _params(self) -> Dict[str, jt.Var]:
        params = dict(self.model.named_parameters())
        missing = [n for n in self.ref.trainable if n not in params]
        if missing:
            raise KeyError(f"the port lacks torch parameters {missing[:5]}"
                           f"{' ...' if len(missing) > 5 else ''}")
        return params

    def check_grads(self, case: str, rtol: float, atol: float, float64: bool = False) -> Row:
        """The loss and its gradient for every torch-trainable parameter vs torch.

        ``float64``: both sides compute in float64 (the reference from ``dump(...,
        float64_grads=True)``, the port under :func:`in_float64`), for gradients float32 cannot
        decide (see ``torch_dump.float64_gradients``).  Without it, when the float32 gradients
        differ and the reference has float64 ones, the float64 comparison judges: if the port
        matches torch there, the float32 difference is rounding the network amplifies (a ReLU
        input on the wrong side of its kink, a normalisation of near-constant channels) and the
        row passes, saying so with both figures; a port error differs in float64 too."""
        if float64:
            comps = self._grad_comps(rtol, atol, float64=True)[0]
            return make_row(self.suite, case, comps, None, "float64 on both sides", self.results)
        comps, got32 = self._grad_comps(rtol, atol)
        accuracy_note = ""
        if "loss64" in self.ref.arrays:
            ref32 = {"loss": self.ref["loss"], **{f"grad/{n}": g for n, g in self.ref.grads.items()}}
            ref64 = {"loss": self.ref["loss64"], **{f"grad/{n}": g for n, g in self.ref.grads64.items()}}
            # a gradient that is zero up to float64 rounding (a bias before a normalisation) is
            # cancellation residue in float32 on both sides: nothing for the ratio to measure
            residue = {f"grad/{n}" for n in self.rounding_level_gradients()}
            spread = {f"grad/{n}": e for n, e in self.ref.grad_spread.items()}
            noisy, ratio = accuracy.noisier_than_torch(got32, ref32, ref64, [c.name for c in comps
                                                                              if c.name not in residue], spread)
            if noisy:
                note = (f"float32 error up to {ratio:.3g}x torch's own (both against torch's float64 gradients; "
                        f"allowed {accuracy.ROUNDING_FACTOR:g}x whatever rtol/atol say); "
                        + self._float64_verdict(rtol, atol))
                return make_row(self.suite, case, noisy + comps, None, note, self.results)
            # said on a passing row too: a per-term proof reports how accurate each term's gradients are
            if ratio is not None:
                accuracy_note = f"float32 error at most {ratio:.3g}x torch's own (both against float64)"
        if not all(c.ok for c in comps) and "loss64" in self.ref.arrays:
            comps64 = self._grad_comps(rtol, atol, float64=True)[0]
            judged = [c.name for c in comps if not c.ok and c.name not in residue]
            rounding, ratio = within_torch_rounding(got32, ref32, ref64, judged, rtol, atol, spread)
            if all(c.ok for c in comps64) and all(c.ok for c in rounding):
                skipped = len([c for c in comps if not c.ok and c.name in residue])
                judged_text = (f"float32 error is at most {ratio:.3g}x torch's own on each array" if judged
                               else "float32 gradients match torch's within the row's tolerance on the other arrays")
                note = float64_note("gradients", comps, comps64,
                                    f"torch's own float32 gradients differ from its float64 ones by "
                                    f"{self.torch_float32_error():.3g} of the largest gradient; the port's "
                                    + judged_text
                                    + (f" ({skipped} zero up to float64 rounding, judged in float64 alone)"
                                       if skipped else ""))
                return make_row(self.suite, case, comps64, None, note, self.results)
            if all(c.ok for c in comps64):
                note = ("float64 matches, but the port's float32 error exceeds "
                        f"{ROUNDING_FACTOR:g}x torch's own float32 error: a float32-only port difference")
                return make_row(self.suite, case, [c for c in rounding if not c.ok] + comps, None, note,
                                self.results)
        div = None
        if not all(c.ok for c in comps) and self.ref.act_order:
            div = self.diagnose(rtol, atol) or self.diagnose_gradients(rtol, atol)
        note = ("forward matches, only gradients differ"
                if ((div is None or div.what != "submodule") and not all(c.ok for c in comps)) else accuracy_note)
        return make_row(self.suite, case, comps, div, note, self.results)

    def _float64_verdict(self, rtol: float, atol: float) -> str:
        """Whether the port's float64 gradients match torch's: a float32-only difference, or a
        port error that float64 shows too."""
        comps64 = self._grad_comps(rtol, atol, float64=True)[0]
        abs64, rel64 = worst(comps64)
        if all(c.ok for c in comps64):
            return f"float64 matches (max abs err {abs64:.3g}, rel {rel64:.3g}): a float32-only port difference"
        bad = [c.name for c in comps64 if not c.ok]
        return (f"float64 differs too ({len(bad)} arrays, max abs err {abs64:.3g}, rel {rel64:.3g}; "
                f"first {bad[0]}): a port error")

    def torch_float32_error(self) -> float:
        """The largest difference of torch's float32 parameter gradients from its float64
        ones, over the largest float64 gradient (an array whose gradient is zero up to rounding
        would make a per-array ratio meaningless)."""
        g64 = self.ref.grads64
        scale = max((float(np.abs(g).max()) for g in g64.values() if g.size), default=0.0)
        err = max((float(np.abs(self.ref.grads[n] - g).max()) for n, g in g64.items()
                   if g.size and n in self.ref.grads), default=0.0)
        return err / scale if scale > 0 else 0.0

    def _grad_comps(self, rtol: float, atol: float, float64: bool = False
                    ) -> Tuple[List[Comparison], Dict[str, np.ndarray]]:
        """Comparisons of the loss and every trainable parameter's gradient (float32, or both
        sides in float64), and the port's arrays by comparison name (``loss``, ``grad/<name>``)."""
        if float64:
            _, value, grads = self.float64_run()
            ref_loss, ref_grads = self.ref["loss64"], self.ref.grads64
        else:
            self.reset()
            params = self._params()
            names = self.ref.trainable
            inputs = self.inputs()
            loss = self.loss_of(self.forward(self.model, inputs), inputs)
            grads = {n: to_numpy(g) for n, g in zip(names, jt.grad(loss, [params[n] for n in names]))}
            value, ref_loss, ref_grads = to_numpy(loss), self.ref["loss"], self.ref.grads
        comps = [compare("loss", value, ref_loss, rtol, atol)] + compare_sets(grads, ref_grads, rtol, atol, "grad")
        return comps, {"loss": value, **{f"grad/{n}": g for n, g in grads.items()}}

    def diagnose_gradients(self, rtol: float, atol: float) -> Optional[Divergence]:
        """The first submodule, from the loss backwards, whose output gradient differs."""
        self.reset()

        def loss() -> Any:
            inputs = self.inputs()
            return self.loss_of(self.forward(self.model, inputs), inputs)
        return first_diverging_gradient(self.model, loss, self.ref, rtol, atol)

    def check_steps(self, case: str, optimizer: Mapping[str, Any], rtol: float, atol: float) -> Row:
        """The ``state_dict`` after each saved optimizer step vs torch (same optimizer spec);
        stops at the first step that differs."""
        if self.ref.steps == 0:
            raise ValueError(f"{self.ref.path.name} has no optimizer steps (dump(steps=N))")
        # Torch-only bookkeeping buffers (num_batches_tracked) have no Jittor twin: compare
        # what both sides hold; a missing trainable parameter already failed in _params().
        comps = self._replay_steps(optimizer, lambda k, state, ref_k: _step_comps(k, state, ref_k, {}, 0.0, rtol, atol),
                                   stop_at_failure=True)
        if not all(c.ok for c in comps) and self.ref.step64(1):
            comps64 = []
            undetermined = self.rounding_level_gradients()
            lr = float(optimizer.get("lr", 0.0))
            for k, state in enumerate(self.float64_steps(optimizer), 1):
                ref_k = {n: v for n, v in self.ref.step64(k).items() if n in state}
                comps64 += _step_comps(k, state, ref_k, dict.fromkeys(undetermined, True), lr, rtol, atol)
            if comps64 and all(c.ok for c in comps64):
                note = float64_note("steps", comps, comps64)
                if undetermined:
                    names = ", ".join(sorted(undetermined)[:3])
                    note += (f"; {len(undetermined)} weight(s) with a zero gradient up to float64 rounding "
                             f"compared within the optimizer's move, 2 x steps x lr ({names})")
                return make_row(self.suite, case, comps64, None, note, self.results)
        if not all(c.ok for c in comps) and not self.ref.step64(1):
            row = self._steps_at_gradient_tolerance(case, optimizer, comps, rtol, atol)
            if row is not None:
                return row
        div = None
        if not all(c.ok for c in comps) and self.ref.act_order:
            div = self.diagnose(rtol, atol)
        return make_row(self.suite, case, comps, div, results=self.results)

    def _replay_steps(self, optimizer: Mapping[str, Any], judge: Callable[[int, Dict[str, Any], Dict[str, Any]],
                      List[Comparison]], stop_at_failure: bool = False) -> List[Comparison]:
        """Run the reference's optimizer steps in float32 from its weights; ``judge(k, state,
        torch's state)`` compares step ``k`` (both restricted to the names both sides hold)."""
        self.reset()
        params = self._params()
        opt = make_optimizer(optimizer, [params[n] for n in self.ref.trainable])
        comps: List[Comparison] = []
        for k in range(1, self.ref.steps + 1):
            inputs = self.inputs()
            opt.step(self.loss_of(self.forward(self.model, inputs), inputs))
            state = self.model.state_dict()
            ref_k = {n: v for n, v in self.ref.step(k).items() if n in state}
            step_comps = judge(k, state, ref_k)
            comps += step_comps
            if stop_at_failure and not all(c.ok for c in step_comps):
                break
        return comps

    def _steps_at_gradient_tolerance(self, case: str, optimizer: Mapping[str, Any], comps32: Sequence[Comparison],
                                     rtol: float, atol: float) -> Optional[Row]:
        """The steps judged without a float64 reference (code that cannot run in double, such as
        StyleGAN2-ADA's, which casts to float32 inside), allowing, weight by weight, what float32
        itself cannot decide (:func:`_step_comps`): a weight element whose torch
        gradient is zero up to float32 rounding (within :data:`FLOAT32_ZERO` of the largest
        gradient), or a weight whose whole gradient is within the row's ``atol`` of zero (which
        the gradients row proves only up to ``atol``), is moved by an adaptive optimizer (Adam:
        lr * g / (|g| + eps)) by up to lr a step in a direction rounding chose, so it is compared
        within that move, 2 x steps x lr + atol; every other element within
        :data:`ROUNDING_FACTOR` times torch's own spread (``step<k>/spread/``: how far torch's
        steps move from a start perturbed by one float32 rounding) plus rtol/atol.  None when
        that does not pass either."""
        scale = max((float(np.abs(g).max()) for g in self.ref.grads.values() if g.size), default=0.0)
        tiny = {n: (np.abs(g) <= FLOAT32_ZERO * scale) | (g.size > 0 and float(np.abs(g).max()) <= atol)
                for n, g in self.ref.grads.items()}
        lr = float(optimizer.get("lr", 0.0))
        ratios: List[float] = []
        comps = self._replay_steps(optimizer, lambda k, state, ref_k: _step_comps(
            k, state, ref_k, tiny, lr, rtol, atol, self.ref.spread(k), ratios))
        if not all(c.ok for c in comps):
            return None
        worst = max(comps32, key=lambda c: c.max_abs_err)
        loose = sorted(n for n, m in tiny.items() if m.any())
        parts = []
        if loose:
            parts.append(f"{sum(int(tiny[n].sum()) for n in loose)} element(s) of {len(loose)} weight(s) whose "
                         f"gradient is zero up to float32 rounding or within atol={atol:g} of zero "
                         f"({', '.join(loose[:3])}) within the optimizer's move, 2 x steps x lr, where "
                         f"Adam-like steps take the sign rounding chose")
        if ratios:
            parts.append(f"the others within {max(ratios):.3g}x torch's own spread from a start one float32 "
                         f"rounding away (allowed {ROUNDING_FACTOR:g}x)")
        note = (f"float32 steps differ (max abs err {worst.max_abs_err:.3g} on {worst.name}); compared "
                + "; ".join(parts or ["at rtol/atol"])
                + ", they match (no float64 reference: the code does not run in double)")
        return make_row(self.suite, case, comps, None, note, self.results)
