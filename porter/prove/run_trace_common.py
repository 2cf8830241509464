"""The framework-neutral half of ``jtport parity --run``'s tracer (numpy only).

A tracer runs a user's training script unmodified (:func:`run_script`: ``sys.argv`` set, the
script's folder current and first on ``sys.path``, ``runpy.run_path``) after its framework's
runner (``run_trace_torch`` / ``run_trace_jittor``) has wrapped a handful of entry points and
forwards them to :class:`Tracer`:

* an optimizer being built (:meth:`Tracer.on_optimizer`): every model owning one of its
  parameters is *captured* — the outermost module that holds them, in the order of its first
  parameter in the optimizer;
* a module call (:meth:`Tracer.enter` / :meth:`Tracer.leave`): an outermost call of a module
  with state that no optimizer captured captures it too ("at its first forward"); during the
  first step every call's output is recorded under ``<root>:<qualname>@<call>`` (torch's call
  order), and a gradient hook on it records the gradient it receives;
* ``backward`` (:meth:`Tracer.on_backward`): the loss of each call;
* a DataLoader iterator being made (:meth:`Tracer.on_loader`): a point where the port's replayed
  random stream moves to torch's;
* an optimizer step (:meth:`Tracer.on_step`): a *step* ends when every optimizer built has
  stepped once more (a GAN's D and G steps are one step); a script without an optimizer ends a
  step at its next ``backward``.  After the first step the parameters, their gradients and the
  recorded activations are kept; after ``steps`` steps the parameters again, and the run stops.

What a capture does is the runner's: torch saves the weights (and its random stream's state),
a spread run perturbs them by one rounding, the Jittor side loads torch's; a capture made while
a module is being built (an optimizer made in a trainer's ``__init__``) is handed over at the
next forward, backward or DataLoader iterator, when that ``__init__`` has finished
initialising the weights.  :meth:`Tracer.save`
writes ``trace.json`` (losses, call order, module classes with file and line, notes) and
``trace.npz`` (arrays) into the output folder, also when the script failed or stopped early.
"""
from __future__ import annotations

import gc
import inspect
import json
import os
import random
import runpy
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .common import flatten

PROGRESS = "jtport-progress:"  # the parent prints stderr lines that start with this
#: the most elements kept of one recorded first-step output (and of its gradient): a larger one
#: is kept as an evenly strided sample of about that many (the same elements on every side), so
#: a trace of a full-size network (MCCNet's VGG-19 at 256x256: 5.2 GB whole) stays small
SAMPLE = 1 << 16


class StopRun(BaseException):
    """Raised by the tracer once the requested steps are done (a BaseException, so the script's
    own ``except Exception`` does not swallow it)."""


class Backend:
    """What the tracer needs of a framework; ``run_trace_torch``/``run_trace_jittor`` subclass it."""

    side = "?"
    module_type: type = object

    def is_tensor(self, x: Any) -> bool:
        """Whether ``x`` is a tensor of this framework."""
        raise NotImplementedError

    def to_numpy(self, t: Any) -> np.ndarray:
        """A numpy copy of tensor ``t``."""
        raise NotImplementedError

    def named_parameters(self, module: Any) -> List[Tuple[str, Any]]:
        """``module.named_parameters()``."""
        return list(module.named_parameters())

    def state(self, module: Any) -> Dict[str, np.ndarray]:
        """``module.state_dict()`` as numpy arrays, under torch's names."""
        return {k: self.to_numpy(v) for k, v in module.state_dict().items() if self.is_tensor(v)}

    def grad_of(self, p: Any) -> Optional[Any]:
        """The accumulated gradient of parameter ``p`` (None if none)."""
        return p.grad

    def requires_grad(self, t: Any) -> bool:
        """Whether a gradient reaches ``t``."""
        return bool(getattr(t, "requires_grad", False))

    def hook(self, t: Any, fn: Callable[[Any], None]) -> None:
        """Call ``fn(grad)`` with each gradient computed for ``t``."""
        t.register_hook(fn)

    def before_backward(self, loss: Any) -> None:
        """A ``backward`` of ``loss`` is about to run (a backend that records output gradients
        itself, rather than through :meth:`hook`, computes them here)."""

    def end_first_step(self) -> None:
        """The first step ended: no more output gradients are recorded."""

    def captured(self, index: int, root: Any, why: str, tracer: "Tracer") -> None:
        """Model ``index`` was just captured (the runner saves, perturbs or loads its weights)."""

    def loader(self, index: int, tracer: "Tracer") -> None:
        """The script's ``index``-th DataLoader iterator is about to be made (torch keeps its random
        stream's state, the port moves its replayed stream there)."""

    def finish(self, tracer: "Tracer") -> None:
        """The run ended (the runner saves what it kept)."""


_LIBRARY = ("site-packages", "dist-packages", os.sep + "shims" + os.sep, os.sep + "lib" + os.sep + "python")


def _is_library(file: Optional[str]) -> bool:
    return not file or any(part in file for part in _LIBRARY)


def _class_site(cls: type) -> Dict[str, Any]:
    """Where class ``cls`` is defined: ``{"class", "file", "line"}`` (file None for builtins)."""
    try:
        file = inspect.getsourcefile(cls)
        line = inspect.getsourcelines(cls)[1]
    except (TypeError, OSError):
        file, line = None, 0
    return {"class": cls.__qualname__, "file": file, "line": line}


class Tracer:
    """Records one run of a training script (see the module docstring)."""

    def __init__(self, backend: Backend, out: Path, steps: int, sample: int = SAMPLE):
        self.b, self.out, self.steps, self.sample = backend, Path(out), int(steps), int(sample)
        self.roots: List[Any] = []
        self.root_why: List[str] = []
        self.names: Dict[int, Tuple[int, str]] = {}  # id(module) -> (root index, qualname)
        self.by_name: Dict[Tuple[int, str], Any] = {}
        self.sites: Dict[str, Dict[str, Any]] = {}  # call -> class site
        self.optimizers: List[int] = []
        self.step_counts: Dict[int, int] = {}
        self.step = 0
        self.depth = 0
        self.calls: Dict[str, int] = {}
        self.losses: List[float] = []
        self.loss_steps: List[int] = []
        self.backward_calls = 0
        self.act_order: List[str] = []
        self.arrays: Dict[str, np.ndarray] = {}
        self.actgrads: Dict[str, np.ndarray] = {}
        self.notes: List[str] = []
        self.snapshots: List[int] = []
        self.pending: List[Tuple[int, Any, str]] = []  # captures made while their owner was being built
        self.loaders = 0
        self.in_backward = 0  # > 0 inside the script's backward(): output gradients are recorded only then
        self.status = "running"
        self.error = ""

    # -- capture ----------------------------------------------------------------------------
    def _modules(self) -> List[Any]:
        cls = self.b.module_type
        # issubclass of the type, not isinstance: isinstance asks lazy modules for __class__
        return [o for o in gc.get_objects() if issubclass(type(o), cls)]

    def _capture(self, root: Any, why: str) -> None:
        index = len(self.roots)
        self.roots.append(root)
        self.root_why.append(f"{type(root).__name__} ({why})")
        seen = set()
        for name, m in root.named_modules():
            if id(m) not in seen and id(m) not in self.names:
                seen.add(id(m))
                self.names[id(m)] = (index, name)
                self.by_name[(index, name)] = m
        if constructing(self.b.module_type):
            self.pending.append((index, root, why))
        else:
            self.b.captured(index, root, why, self)

    def settle(self) -> None:
        """Hand over the captures made while a module was being built (an optimizer made in a
        trainer's ``__init__``, HiSD's): its weights and the random stream as they are now, after
        the rest of that ``__init__`` (a ``self.apply(weights_init)`` re-draws them)."""
        pending, self.pending = self.pending, []
        for index, root, why in pending:
            self.b.captured(index, root, why, self)

    def on_loader(self) -> None:
        """A DataLoader iterator is about to be made: a point both runs pass in the same order,
        where the port's replayed stream moves to torch's (draws neither side shares, a model's
        initialisation among them, leave the streams apart; the loader's shuffling and the
        dataset's random transforms then start from torch's state)."""
        self.settle()
        self.b.loader(self.loaders, self)
        self.loaders += 1

    def on_optimizer(self, opt: Any, params: Sequence[Any]) -> None:
        """An optimizer over ``params`` was built: capture the models that own them."""
        if id(opt) not in self.step_counts:
            self.optimizers.append(id(opt))
            self.step_counts[id(opt)] = 0
        order = {id(p): i for i, p in enumerate(params)}
        owners = []
        for m in self._modules():
            if id(m) in self.names:
                continue
            try:
                named = self.b.named_parameters(m)
            except (AttributeError, TypeError, RuntimeError):  # a half-built module: not a model
                continue
            first = min((order[id(p)] for _, p in named if id(p) in order), default=None)
            if first is not None:
                owners.append((first, m))
        inner = {id(c) for _, m in owners for c in m.modules() if c is not m}
        for _, m in sorted((o for o in owners if id(o[1]) not in inner), key=lambda o: o[0]):
            self._capture(m, f"optimizer {type(opt).__name__} #{len(self.optimizers)}")

    # -- module calls -----------------------------------------------------------------------
    def _call_name(self, module: Any) -> str:
        index, name = self.names.get(id(module), (None, None))
        base = f"{index}:{name or '<root>'}" if index is not None else f"~{type(module).__name__}"
        k = self.calls.get(base, 0)
        self.calls[base] = k + 1
        return f"{base}@{k}"

    def enter(self, module: Any) -> None:
        """Before ``module``'s forward."""
        if self.depth == 0:
            self.settle()
        if self.depth == 0 and id(module) not in self.names and self.b.state(module):
            self._capture(module, "first forward")
        self.depth += 1

    def leave(self, module: Any, out: Any) -> None:
        """After ``module``'s forward returned ``out``."""
        self.depth -= 1
        if self.step != 0 or self.status != "running":
            return
        call = self._call_name(module)
        flat = flatten(out, call, self.b.is_tensor)
        if not flat:
            return
        self.act_order.append(call)
        self.sites[call] = self._site(module)
        for name, t in flat:
            self.arrays[f"act/{name}"] = self._kept(self.b.to_numpy(t), name)
            if self.b.requires_grad(t):
                try:
                    self.b.hook(t, self._grad_recorder(name))
                except RuntimeError as e:  # a framework that refuses the hook: no gradient search there
                    self.note(f"no gradient recorded for {name}: {e}")

    def _site(self, module: Any) -> Dict[str, Any]:
        """The class site of ``module``; for a library class (``nn.Linear``) also ``owner``: the
        site of the nearest enclosing module whose class is the user's, and the attribute path."""
        site = _class_site(type(module))
        index, name = self.names.get(id(module), (None, ""))
        if index is not None and _is_library(site["file"]):
            parts = name.split(".") if name else []
            while parts:
                parts.pop()
                parent = self.by_name.get((index, ".".join(parts)))
                owner = _class_site(type(parent)) if parent is not None else None
                if owner and not _is_library(owner["file"]):
                    site["owner"] = dict(owner, attribute=name[len(".".join(parts)):].lstrip("."))
                    break
        return site

    def _kept(self, a: np.ndarray, name: str) -> np.ndarray:
        """``a``, or its evenly strided sample when it has more than ``sample`` elements (said
        once in the notes)."""
        if self.sample <= 0 or a.size <= self.sample:
            return a
        stride = -(-a.size // self.sample)
        self.note(f"first-step outputs over {self.sample} elements (and their gradients) are compared on "
                  "every k-th element only (k = ceil(size / that)), the same elements on both sides")
        return np.ascontiguousarray(a.reshape(-1)[::stride])

    def _grad_recorder(self, name: str) -> Callable[[Any], None]:
        """Add each gradient ``name`` receives in a ``backward()`` of the first step; one that a
        ``torch.autograd.grad`` of the script computes (a gradient penalty: StarGAN v2's R1, a
        WGAN-GP term) is not a gradient of a loss, and the port's ``jt.grad`` never reports it."""
        def record(g):
            if self.step == 0 and self.in_backward and g is not None:
                g = self._kept(self.b.to_numpy(g), name).astype(np.float64)
                self.actgrads[name] = self.actgrads[name] + g if name in self.actgrads else g
        return record

    # -- backward and steps -----------------------------------------------------------------
    def on_backward(self, loss: Any) -> None:
        """Before a ``backward`` of ``loss``."""
        self.settle()
        if not self.optimizers and self.backward_calls:
            self._end_step()  # no optimizer: the update happened between the two backward calls
        self.backward_calls += 1
        value = self.b.to_numpy(loss).astype(np.float64)
        self.losses.append(float(value.sum()) if value.size else float("nan"))
        if self.step == 0:
            self.b.before_backward(loss)
        self.loss_steps.append(self.step + 1)
        progress(f"{self.b.side}: step {self.step + 1}/{self.steps}, backward {self.backward_calls}, "
                 f"loss {self.losses[-1]:.6g}")

    def on_step(self, opt: Any) -> None:
        """After an optimizer step."""
        if id(opt) not in self.step_counts:
            return
        self.step_counts[id(opt)] += 1
        if min(self.step_counts.values()) > self.step:
            self._end_step()

    def _snapshot(self, tag: str, grads: bool) -> None:
        for i, root in enumerate(self.roots):
            for k, v in self.b.state(root).items():
                self.arrays[f"{tag}/{i}:{k}"] = v
            if grads:
                for k, p in self.b.named_parameters(root):
                    g = self.b.grad_of(p)
                    if g is not None:
                        self.arrays[f"grad{tag[5:]}/{i}:{k}"] = self.b.to_numpy(g)
        self.snapshots.append(self.step)

    def _end_step(self) -> None:
        self.step += 1
        if self.step == 1:
            self._snapshot("param1", grads=bool(self.optimizers))
            self.b.end_first_step()
        if self.step >= self.steps:
            if self.steps > 1:
                self._snapshot(f"param{self.step}", grads=False)
            self.status = "stopped"
            raise StopRun()

    def note(self, text: str) -> None:
        """A remark for the report (said once)."""
        if text not in self.notes:
            self.notes.append(text)

    # -- output -----------------------------------------------------------------------------
    def save(self) -> None:
        """``trace.json`` and ``trace.npz`` into the output folder."""
        self.out.mkdir(parents=True, exist_ok=True)
        meta = {"side": self.b.side, "status": self.status, "error": self.error, "steps": self.step,
                "requested": self.steps, "losses": self.losses, "loss_steps": self.loss_steps,
                "act_order": self.act_order, "sites": self.sites, "roots": self.root_why,
                "optimizers": len(self.optimizers), "notes": self.notes, "snapshots": self.snapshots}
        (self.out / "trace.json").write_text(json.dumps(meta, indent=1))
        arrays = dict(self.arrays)
        arrays.update({f"actgrad/{k}": v for k, v in self.actgrads.items()})
        np.savez(self.out / "trace.npz", **arrays)
        self.b.finish(self)


def traced_call(tracer: Tracer, call: Callable, before: Optional[Callable[[Any], None]] = None) -> Callable:
    """A module class's ``__call__`` reporting each call to ``tracer`` (``before(module)`` first)."""
    def module_call(self, *args, **kwargs):
        tracer.enter(self)
        ok = False
        try:
            if before is not None:
                before(self)
            out = call(self, *args, **kwargs)
            ok = True
        finally:
            if not ok:
                tracer.depth -= 1
        tracer.leave(self, out)
        return out
    return module_call


def traced_loader_iter(tracer: Tracer, iterate: Callable) -> Callable:
    """A DataLoader class's ``__iter__`` reporting each new iterator to ``tracer`` first."""
    def loader_iter(self):
        tracer.on_loader()
        return iterate(self)
    return loader_iter


def traced_backward(tracer: Tracer, backward: Callable, tensor_type: type) -> Callable:
    """An ``autograd.backward(tensors, ...)`` reporting the loss (one tensor) to ``tracer`` first."""
    def autograd_backward(tensors, *args, **kwargs):
        loss = tensors[0] if isinstance(tensors, (list, tuple)) and len(tensors) == 1 else tensors
        tracer.in_backward += 1
        try:
            if isinstance(loss, tensor_type):
                tracer.on_backward(loss)
            return backward(tensors, *args, **kwargs)
        finally:
            tracer.in_backward -= 1
    return autograd_backward


def constructing(module_type: type) -> bool:
    """Whether the caller runs inside a ``module_type``'s ``__init__`` (building a model: its random
    draws initialise weights, which the port receives from torch anyway, so they are not shared)."""
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_name == "__init__" and issubclass(type(f.f_locals.get("self")), module_type):
            return True
        f = f.f_back
    return False


def progress(text: str) -> None:
    """One progress line for the parent process (on stderr)."""
    print(f"{PROGRESS} {text}", file=sys.stderr, flush=True)


def run_script(tracer: Tracer, script: str, args: Sequence[str]) -> int:
    """Run ``script`` as ``__main__`` with ``args`` from its own folder; record how it ended in
    ``tracer`` and save it.  Returns the exit status: 0 finished or stopped, 1 it raised."""
    path = Path(script).resolve()
    random.seed(0)  # an unseeded script's Python and numpy draws: the same on every side
    np.random.seed(0)
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.parent))
    os.chdir(path.parent)
    code = 0
    try:
        runpy.run_path(str(path), run_name="__main__")
        tracer.status = "finished" if tracer.status == "running" else tracer.status
    except StopRun:
        tracer.status = "stopped"
    except SystemExit as e:
        if e.code not in (None, 0):
            tracer.status, tracer.error, code = "failed", f"exit status {e.code}", 1
        else:
            tracer.status = "finished"
    except BaseException:  # the script's own error: reported with its traceback, exit 2 upstream
        tracer.status, tracer.error, code = "failed", traceback.format_exc(), 1
        traceback.print_exc()
    if tracer.status == "finished" and tracer.step and tracer.step not in tracer.snapshots and tracer.step > 1:
        tracer._snapshot(f"param{tracer.step}", grads=False)
    tracer.save()
    return code
