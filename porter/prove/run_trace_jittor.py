"""Jittor side of ``jtport parity --run``: the converted script under the tracer, from torch's start.

``python -m porter.prove.run_trace_jittor --out DIR --steps N --reference TORCH_DIR SCRIPT -- ARGS``
runs the converted script unmodified under :class:`~.run_trace_common.Tracer` with these hooks:

* ``shims.optim.Optimizer.__init__`` (capture) and the ``step`` of every optimizer class built
  (steps; an outermost call counts once);
* ``jittor.Module.__call__`` and ``shims.nn.Module.__call__`` (first-forward capture, outputs);
* ``shims.autograd.backward`` (what ``Var.backward``, ``opt.step(loss)`` and ``opt.backward``
  call: the losses);
* ``shims.data.DataLoader.__iter__``: the replayed stream moves to torch's state as torch made
  its iterator of the same number (``TORCH_DIR/loaders.npy``);
* ``jt.randn``/``jt.rand``/``jt.randn_like``/``jt.rand_like``, ``shims.randint`` and
  ``jt.randperm`` (what ``torch.randint``/``torch.randperm`` convert to) draw from torch's replayed CPU
  stream (``shims.random_torch``), the ``k``-th draw starting from the state torch's stream had
  before its ``k``-th (``TORCH_DIR/draws.npy``), so data drawn with ``torch.randn``, noise drawn
  inside forward and dropout masks (``shims``' dropout draws ``jt.rand``) are torch's numbers; a
  normal draw whose values torch kept (``TORCH_DIR/draw_values.npz``: 16 values or more, which
  the replay matches only to float32 rounding) takes those values;
* ``jt.init.uniform_``/``gauss_`` and ``Var.uniform_``/``gauss_``/``normal_`` (what torch's in-place
  draws and ``nn.init.uniform_``/``normal_`` convert to) likewise, on a float32 Var;
* ``jt.set_global_seed`` (what converted ``torch.manual_seed`` and ``torch.cuda.manual_seed``
  reach through ``shims.manual_seed``) seeds Jittor and the replayed stream only: Python's
  ``random`` and numpy's streams stay where they were, as torch's seeds leave them (the tracer
  seeds both alike on each side before the script starts), so a dataset's ``random.random()``
  draws are torch's (StarGAN v2's random crop: a different first batch before).

The gradient each first-step module output receives is not taken from hooks: a hook node on a
computed Var (``Var.register_hook``) fires once per consumer under ``shims`` (measured: ``fc1``
three times in a two-layer net, ``fc2``'s first call with a gradient of ones), so the recorded
gradients were wrong while every parameter gradient matched.  Instead, before each first-step
``backward`` one extra ``jt.grad(loss, outputs, retain_graph=True)`` gives every recorded output
its whole gradient at once (summed over backward calls, as torch's hooks are).  Each output is
kept as the graph node it was when its module returned, not as the Python Var: an in-place op
on it afterwards (StyleGAN2-ADA's style mixing ``ws[:, cutoff:] = ...`` on the mapping's
output, ``y.mul_(2)``) rebinds that Var to a new node (Jittor's ``assign``), while torch's hook
still reports the gradient of the value before the op (measured on StyleGAN2-ADA: the mapping
output's gradient "differed" by rel 1.6, being the mixed ``ws``'s).

At the ``i``-th capture it loads torch's weights of model ``i`` (``TORCH_DIR/init.npz``, strict:
a missing or extra key is an error naming it) and moves the replayed stream to where torch's
stood at that point (``torch.get_rng_state()``, :func:`set_torch_state`).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path
from typing import Any, Optional

import numpy as np

import shims  # noqa: F401  (applies the Jittor environment before jittor is imported)
import jittor as jt
from shims import autograd as shims_autograd
from shims import random_torch
from shims.optim import optimizers as shims_optim
from shims.nn.dropouts import dropout as shims_dropout

from .model import to_numpy
from .run_trace_common import (SAMPLE, Backend, Tracer, constructing, run_script, traced_backward, traced_call,
                               traced_loader_iter)

#: draws made inside Jittor or ``shims`` have no ``torch.rand`` counterpart on the torch side
#: (``shims``' ``bernoulli`` stands for torch's C kernel) and use Jittor's own generator; except
#: ``shims``' dropouts (element, feature and alpha), whose ``jt.rand`` mask the torch side's
#: dropouts draw with ``torch.rand``: the file those functions are in, taken from the function
#: (a path written out here went stale when they moved from ``shims/nn`` to ``shims/ops``)
PORT_LIBS = (f"{os.sep}jittor{os.sep}", f"{os.sep}shims{os.sep}")
SHARED_IN_SHIMS = shims_dropout.__code__.co_filename
_MT_WORDS = 624
_STATE_AT = 24  # torch's CPUGeneratorImplState: seed (8), left (4), seeded (4), next (8), state[624] (8 each)


def set_torch_state(gen: random_torch.Generator, state: np.ndarray) -> None:
    """Put ``gen`` where torch's CPU generator with ``state`` (``torch.get_rng_state()`` bytes)
    stands: its seed, its 624 twister words and the position in them (``left == 1`` means a
    twist is due: numpy's position 624), and the cached second value of a float64 normal pair."""
    raw = np.asarray(state, np.uint8).tobytes()
    seed = int.from_bytes(raw[0:8], "little")
    left = int.from_bytes(raw[8:12], "little", signed=True)
    nxt = int.from_bytes(raw[16:24], "little")
    words = np.frombuffer(raw[_STATE_AT:_STATE_AT + 8 * _MT_WORDS], np.uint64).astype(np.uint32)
    normal_y = np.frombuffer(raw[_STATE_AT + 8 * _MT_WORDS + 8:_STATE_AT + 8 * _MT_WORDS + 16], np.float64)[0]
    valid = int.from_bytes(raw[_STATE_AT + 8 * _MT_WORDS + 24:_STATE_AT + 8 * _MT_WORDS + 28], "little")
    head = np.array([_MT_WORDS if left == 1 else nxt, seed & 0xFFFFFFFF, seed >> 32, bool(valid),
                     *np.array([normal_y if valid else 0.0]).view(np.uint32)], np.uint32)
    gen.set_state(np.concatenate([words, head]).view(np.uint8))


class JittorBackend(Backend):
    """The tracer's view of Jittor (through ``shims``)."""

    side = "jittor"
    module_type = jt.Module

    def __init__(self, reference: Path):
        self.reference = reference
        self._init = None
        draws, loaders = reference / "draws.npy", reference / "loaders.npy"
        self.draws = np.load(draws) if draws.exists() else np.zeros((0, 0), np.uint8)
        self.loaders = np.load(loaders) if loaders.exists() else np.zeros((0, 0), np.uint8)
        values = reference / "draw_values.npz"
        self.values = dict(np.load(values)) if values.exists() else {}
        self.drawn = 0
        self.tracer: Any = None
        self.outputs: list = []  # (Var, record) of the first step's module outputs

    def before_draw(self) -> None:
        """Start the next replayed draw from torch's state before its draw of the same number."""
        if self.drawn < len(self.draws):
            set_torch_state(random_torch.default_generator, self.draws[self.drawn])
        elif self.tracer is not None:
            self.tracer.note(f"the port made more random draws (jt.randn/jt.rand) than torch's {len(self.draws)}: "
                             "the extra ones continue torch's stream unshared")
        self.drawn += 1

    def torch_values(self, shape: tuple) -> Optional[np.ndarray]:
        """The values of torch's draw of the number just started (:meth:`before_draw`) when torch
        kept them and they have ``shape``, else None (the draw is replayed)."""
        kept = self.values.get(str(self.drawn - 1))
        return kept if kept is not None and kept.shape == tuple(shape) else None

    def loader(self, index: int, tracer: Tracer) -> None:
        """Move the replayed stream to torch's as its ``index``-th DataLoader iterator was made."""
        if index < len(self.loaders):
            set_torch_state(random_torch.default_generator, self.loaders[index])
        else:
            tracer.note(f"the port made more DataLoader iterators than torch's {len(self.loaders)}")

    def is_tensor(self, x: Any) -> bool:
        return isinstance(x, jt.Var)

    def to_numpy(self, t: Any) -> np.ndarray:
        return to_numpy(t)

    def requires_grad(self, t: Any) -> bool:
        return bool(t.requires_grad)

    def state(self, module: Any) -> dict:
        sd = module.state_dict()
        return {k: to_numpy(v) for k, v in sd.items() if isinstance(v, (jt.Var, np.ndarray))}

    def hook(self, t: Any, fn) -> None:
        """Keep the node ``t`` holds now for :meth:`before_backward` (no hook node, and not ``t``
        itself, which a later in-place op rebinds: see the module docstring)."""
        node = t.detach()
        node._update(t)  # now a second holder of t's own node (assign would copy flags onto it)
        self.outputs.append((node, fn))

    def before_backward(self, loss: Any) -> None:
        """Hand each kept output the gradient ``loss`` sends it (outputs it does not reach: none)."""
        if not self.outputs or not isinstance(loss, jt.Var):
            return
        if loss.numel() != 1:
            self.tracer.note("a first-step backward of a non-scalar loss: its output gradients are not recorded")
            return
        # one target per node: a module returning its last child's output (``return self.fc2(h)``)
        # records the same node twice, and Jittor reports a repeated target as unreached
        targets = list({t.id: t for t, _ in self.outputs}.values())
        grads, reached = shims_autograd.grads_reached(loss.sum(), targets, True)
        got = {t.id: (g, r) for t, g, r in zip(targets, grads, reached)}
        for t, record in self.outputs:
            g, r = got[t.id]
            if r:
                record(g)

    def end_first_step(self) -> None:
        """Let go of the first step's outputs."""
        self.outputs = []

    def captured(self, index: int, root: Any, why: str, tracer: Tracer) -> None:
        if self._init is None:
            self._init = dict(np.load(self.reference / "init.npz"))
        prefix = f"{index}:"
        state = {k[len(prefix):]: v for k, v in self._init.items() if k.startswith(prefix)}
        if not state and f"rng/{index}" not in self._init:
            raise RuntimeError(f"jtport parity --run: the port built model #{index} ({type(root).__name__}, {why}) "
                               "that torch's run never built: the two scripts build different models")
        shims.load_state_dict(root, state, strict=True)
        set_torch_state(random_torch.default_generator, self._init[f"rng/{index}"])


def _from_port(filename: str) -> bool:
    """Whether a call made from ``filename`` is Jittor's or the shims' own (not the script's)."""
    return any(lib in filename for lib in PORT_LIBS)


def _replayed(backend: JittorBackend, own, values):
    """``own`` (a draw of Jittor's generator) drawing ``values(*args, **kw)`` from torch's replayed
    stream instead, when called from the user's code outside a module's ``__init__``."""
    def draw(*args, **kw):
        caller = sys._getframe(1).f_code.co_filename
        library = _from_port(caller) and caller != SHARED_IN_SHIMS
        if library or constructing(jt.Module) or kw.get("generator") is not None:
            return own(*args, **kw)
        backend.before_draw()
        return values(*args, **kw)
    return draw


def _floats(backend: JittorBackend, kind: str):
    def values(*size, dtype="float32", **_):
        if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
            size = tuple(size[0])
        if kind == "normal":
            kept = backend.torch_values(size)
            drawn = random_torch.normal(size) if kept is None else kept
        else:
            drawn = random_torch.rand(size)
        return jt.array(drawn.reshape(size)).cast(dtype)
    return values


def _randint(low, high=None, size=None, *, dtype=None, **_):
    """``shims.randint``'s arguments (torch's two forms), torch's numbers, the shim's dtype."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    return jt.array(random_torch.randint(low, high, size)).cast(dtype or "int32")


def _randperm(n, dtype="int32", **_):
    """``jt.randperm(n)`` (what ``torch.randperm`` converts to), torch's permutation."""
    return jt.array(np.array(random_torch.randperm(n), np.int64)).cast(dtype)


def _like(draw):
    def like(x, dtype=None, **_):
        return draw(tuple(x.shape), dtype=dtype or x.dtype)
    return like


def _scalar(x):
    return x.item() if isinstance(x, jt.Var) else x


def _inplace(backend: JittorBackend, own, kind: str):
    """``jt.init.uniform_``/``gauss_`` (``Var.uniform_``/``normal_``: what torch's in-place draws
    and ``nn.init.uniform_``/``normal_`` convert to) filling a float32 ``var`` from torch's replayed
    stream, under the rule of :func:`_replayed`: torch's ``uniform_`` kernel exactly
    (``random_torch.uniform``), ``normal_`` as ``N(0, 1) * std + mean``."""
    def replays(var) -> bool:
        return not (_from_port(sys._getframe(2).f_code.co_filename) or constructing(jt.Module)
                    or str(var.dtype) != "float32")

    def uniform_(var, low=0, high=1):
        if not replays(var):
            return own(var, low, high)
        backend.before_draw()
        return var.assign(jt.array(random_torch.uniform(tuple(var.shape), _scalar(low), _scalar(high))))

    def gauss_(var, mean=0.0, std=1.0):
        if not replays(var):
            return own(var, mean, std)
        backend.before_draw()
        kept = backend.torch_values(tuple(var.shape))  # torch's normal_(mean, std) itself
        if kept is not None:
            return var.assign(jt.array(kept))
        return var.assign(jt.array(random_torch.normal(tuple(var.shape))) * std + mean)
    return uniform_ if kind == "uniform" else gauss_


def _torch_seed(own):
    """``jt.set_global_seed`` (``own``) leaving Python's ``random`` and numpy's global streams as
    they were: ``torch.manual_seed``/``torch.cuda.manual_seed`` seed torch's generators only, and
    ``shims.manual_seed`` reseeds those two only because importing Jittor reseeded them from the
    clock, which the tracer already undid by seeding both alike on each side."""
    def set_global_seed(*args, **kwargs):
        python, numpy = random.getstate(), np.random.get_state()
        try:
            return own(*args, **kwargs)
        finally:
            random.setstate(python)
            np.random.set_state(numpy)
    return set_global_seed


def _count_steps(cls: type, tracer: Tracer) -> None:
    """``cls.step`` reporting each outermost step of an optimizer to ``tracer``: an optimizer
    class with a ``step`` of its own (``shims.optim.LBFGS``, a converted torch optimizer) is
    counted like the base's, and a step that calls another (``super().step()``, the base's
    closure form calling ``self.step()``) counts once, as torch's step hooks do."""
    own = cls.__dict__["step"]
    if getattr(own, "_jtport_counted", False):
        return

    def step(self, *args, **kwargs):
        depth = self.__dict__.get("_jtport_step_depth", 0)
        self.__dict__["_jtport_step_depth"] = depth + 1
        try:
            out = own(self, *args, **kwargs)
        finally:
            self.__dict__["_jtport_step_depth"] = depth
        if depth == 0:
            tracer.on_step(self)
        return out

    step._jtport_counted = True
    step.__doc__, step.__name__, step.__qualname__ = own.__doc__, own.__name__, own.__qualname__
    cls.step = step


def install(tracer: Tracer) -> None:
    """Wrap the port's entry points so that they report to ``tracer``."""
    init = shims_optim.Optimizer.__init__

    def optimizer_init(self, params, *args, **kwargs):
        init(self, params, *args, **kwargs)
        for cls in type(self).__mro__:
            if "step" in cls.__dict__ and issubclass(cls, shims_optim.Optimizer):
                _count_steps(cls, tracer)
        tracer.on_optimizer(self, self.params())

    shims_optim.Optimizer.__init__ = optimizer_init
    for cls in (jt.Module, shims.nn.Module):
        cls.__call__ = traced_call(tracer, cls.__call__)
    shims_autograd.backward = traced_backward(tracer, shims_autograd.backward, jt.Var)
    shims.data.DataLoader.__iter__ = traced_loader_iter(tracer, shims.data.DataLoader.__iter__)
    randn = _replayed(tracer.b, jt.randn, _floats(tracer.b, "normal"))
    rand = _replayed(tracer.b, jt.rand, _floats(tracer.b, "uniform"))
    for owner in (jt, shims):
        for name, fn in (("randn", randn), ("rand", rand), ("randn_like", _like(randn)), ("rand_like", _like(rand))):
            if hasattr(owner, name) or owner is jt:
                setattr(owner, name, fn)
    inplace = {"uniform": ((jt.init, "uniform_"), (jt.Var, "uniform_")),
               "normal": ((jt.init, "gauss_"), (jt.Var, "gauss_"), (jt.Var, "normal_"))}
    for kind, owners in inplace.items():
        for owner, name in owners:
            setattr(owner, name, _inplace(tracer.b, getattr(owner, name), kind))
    shims.randint = _replayed(tracer.b, shims.randint, _randint)
    jt.randperm = _replayed(tracer.b, jt.randperm, _randperm)
    jt.set_global_seed = _torch_seed(jt.set_global_seed)
    jt.empty = _zeroed(tracer, jt.empty)
    shims.random_ = _random_(tracer.b, shims.random_)


def _random_(backend: JittorBackend, own):
    """``shims.random_`` (what ``Tensor.random_`` converts to): a bounded draw on int64 from
    torch's replayed stream (``torch.randint``'s kernel), as the torch side shares it."""
    def random_(var, low=0, high=None):
        if (_from_port(sys._getframe(1).f_code.co_filename) or constructing(jt.Module) or str(var.dtype) != "int64"
                or (high is None and low == 0)):
            return own(var, low, high)
        if high is None:
            low, high = 0, low
        backend.before_draw()
        return var.assign(jt.array(random_torch.randint(int(low), int(high), tuple(var.shape))).cast(var.dtype))
    return random_


def _zeroed(tracer: Tracer, empty):
    """``jt.empty`` (what ``torch.empty`` converts to) giving zeros when the script calls it, as
    the torch side's ``torch.empty`` does under the tracer: uninitialised memory is no value to
    compare.  Jittor's and the shims' own calls (buffers they fill) stay Jittor's, unnoted."""
    def zeroed(*args, **kwargs):
        if _from_port(sys._getframe(1).f_code.co_filename):
            return empty(*args, **kwargs)
        tracer.note("jt.empty: its uninitialised contents read as zeros on both sides")
        return jt.zeros_like(empty(*args, **kwargs))
    return zeroed


def main(argv=None) -> int:
    """Entry point: parse, install the hooks, run the converted script."""
    ap = argparse.ArgumentParser(prog="run_trace_jittor")
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--sample", type=int, default=SAMPLE)
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    out = Path(a.out).resolve()
    backend = JittorBackend(Path(a.reference).resolve())
    tracer = backend.tracer = Tracer(backend, out, a.steps, a.sample)
    install(tracer)
    start = backend.reference / "start_state.npy"
    if start.exists():  # an unseeded script: torch's stream as it was when the script started
        set_torch_state(random_torch.default_generator, np.load(start))
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    return run_script(tracer, a.script, args)


if __name__ == "__main__":
    sys.exit(main())
