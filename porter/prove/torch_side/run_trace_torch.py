"""Torch side of ``jtport parity --run`` (torch and numpy only; runs under the torch interpreter).

``python -m porter.prove.torch_side.run_trace_torch --out DIR --steps N [--perturb SEED] SCRIPT -- ARGS``
runs the user's original script unmodified under :class:`~.run_trace_common.Tracer`, with these
hooks installed first (nothing in the user's files changes):

* ``torch.optim.Optimizer.__init__`` (capture) and a global optimizer step post-hook;
* ``torch.nn.Module.__call__`` (captures at a first forward, records outputs of the first step);
* ``torch.autograd.backward`` (what ``Tensor.backward`` calls: the losses);
* ``DataLoader.__iter__``: the stream's state as each iterator is made (``DIR/loaders.npy``);
* ``torch.randn``/``rand``/``randn_like``/``rand_like``/``randint``/``randperm``: the stream's state before each call is
  kept (``DIR/draws.npy``); the port starts its draw of the same number from it, so data made
  with ``torch.randn``, noise drawn in forward and dropout masks are torch's numbers even where
  building a model consumed the two streams differently.  A normal draw (``randn``,
  ``randn_like``, ``normal_``) of 16 values or more is replayed only to float32 rounding (torch's
  vectorised Box-Muller), so the values of every float32 normal draw are kept too
  (``DIR/draw_values.npz``, up to :data:`EXACT_LIMIT` elements a draw) and the port takes them;
* ``torch.nn.functional``'s dropouts (``dropout``, ``dropout1d/2d/3d``, ``alpha_dropout``,
  ``feature_alpha_dropout``, and so the ``nn.Dropout*`` modules): the mask becomes
  ``torch.rand(shape) >= p`` (``shape[:2]`` for a feature dropout), a draw of torch's CPU stream
  that the port replays (``shims.random_torch``), where torch's own ``bernoulli_`` is not
  replayable; the run is still dropout with keep-probability ``1 - p``;
* ``Tensor.uniform_``/``normal_`` (``nn.init.uniform_``/``normal_`` on a noise buffer in
  forward, MCCNet's ``Net``): the state before each is kept too, the port's in-place draw replays it;
* draws the port cannot replay (``bernoulli``, ``normal``, ``multinomial``, an RNN's
  inter-layer dropout) are noted, not changed.

At each capture it saves the model's ``state_dict`` and torch's random-stream state (so the port
starts where torch's stream stood after building the model) into ``DIR/init.npz``; with
``--perturb SEED`` (a spread run) it instead multiplies every floating weight by one float32
rounding of noise (``torch_dump.rounding_perturbed``) and saves nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from ..run_trace_common import (SAMPLE, Backend, Tracer, constructing, run_script, traced_backward, traced_call,
                                traced_loader_iter)
from .cuda_as_cpu import cuda_as_cpu
from .removed_apis import older_torch_apis
from .torch_dump import rounding_perturbed

#: draws the port replays (``jt.randn`` ...: :mod:`.run_trace_jittor`), each from torch's state
SHARED = ("randn", "rand", "randn_like", "rand_like", "randint", "randperm")
#: draws that torch's own code makes (torchvision's transforms) are not counted: the port replays
#: those inside ``shims`` from ``shims.random_torch`` directly
TORCH_LIBS = (f"{os.sep}torch{os.sep}", f"{os.sep}torchvision{os.sep}")
UNSHARED = (("torch", "bernoulli"), ("torch", "normal"), ("torch", "multinomial"))
#: uninitialised allocations: zeros on both sides (:func:`_zeroed`; the port's ``jt.empty``)
EMPTY = ("empty", "empty_like", "empty_strided")
#: in-place draws shared inside forward (the port's ``jt.init.uniform_``/``gauss_`` replay them)
INPLACE_SHARED = ("uniform_", "normal_")
#: normal draws whose values the port takes from torch (its replay agrees only to rounding, and a
#: rounding in StarGAN v2's latent codes moved the discriminator's loss after Adam's first step by 5e-5)
NORMAL = ("randn", "randn_like", "normal_")
#: the most elements of one normal draw whose values are kept (a larger one is replayed)
EXACT_LIMIT = 1 << 20
_INIT_FILE = os.path.join("torch", "nn", "init.py")
#: the wrappers ``cuda_as_cpu`` puts around torch's factories on a machine without CUDA: the
#: caller of a draw is the frame before them
_DISPATCH = os.path.join("torch_side", "cuda_as_cpu.py")
#: the frames of ``nn.init.uniform_``/``normal_`` (``deprecated_init``: the alias ``nn.init.normal``)
_INIT_DRAWS = ("uniform_", "normal_", "_no_grad_uniform_", "_no_grad_normal_", "deprecated_init")
#: torch's dropouts, redrawn with a ``torch.rand`` mask as ``shims``' dropouts draw theirs:
#: name -> (feature dropout, alpha dropout, the rank read as unbatched, ``training``'s default)
DROPOUTS = {"dropout": (False, False, None, True), "dropout1d": (True, False, 2, True),
            "dropout2d": (True, False, None, True), "dropout3d": (True, False, 4, True),
            "alpha_dropout": (False, True, None, False), "feature_alpha_dropout": (True, True, None, False)}
_ALPHA = 1.7580993408473766  # SELU's alpha * scale (torch's constant)


class TorchBackend(Backend):
    """The tracer's view of torch."""

    side = "torch"
    module_type = torch.nn.Module

    def __init__(self, out: Path, perturb: int = 0):
        self.out, self.perturb = out, perturb
        self.init: Dict[str, np.ndarray] = {}
        self.draws: List[np.ndarray] = []
        self.values: Dict[str, np.ndarray] = {}  # draw number -> a normal draw's values
        self.loaders: List[np.ndarray] = []

    def finish(self, tracer: Tracer) -> None:
        if self.draws:
            np.save(self.out / "draws.npy", np.stack(self.draws))
        if self.values:
            np.savez(self.out / "draw_values.npz", **self.values)
        if self.loaders:
            np.save(self.out / "loaders.npy", np.stack(self.loaders))

    def loader(self, index: int, tracer: Tracer) -> None:
        self.loaders.append(torch.get_rng_state().numpy().copy())

    def keep_values(self, name: str, t: Any) -> None:
        """After the last counted draw: keep its values when it is a normal draw the port's replay
        only approximates (:data:`NORMAL`, up to :data:`EXACT_LIMIT` elements, float32)."""
        if (name in NORMAL and isinstance(t, torch.Tensor) and t.dtype == torch.float32
                and t.numel() <= EXACT_LIMIT):
            self.values[str(len(self.draws) - 1)] = t.detach().cpu().numpy().copy()

    def is_tensor(self, x: Any) -> bool:
        return isinstance(x, torch.Tensor)

    def to_numpy(self, t: Any) -> np.ndarray:
        t = t.detach().cpu()
        if t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()
        return t.numpy().copy()

    def captured(self, index: int, root: Any, why: str, tracer: Tracer) -> None:
        if self.perturb:
            rng = np.random.default_rng(self.perturb * 1000 + index)
            with torch.no_grad():
                for t in list(root.parameters()) + list(root.buffers()):
                    if t.is_floating_point():
                        t.copy_(rounding_perturbed(t, rng))
            return
        for k, v in self.state(root).items():
            self.init[f"{index}:{k}"] = v
        self.init[f"rng/{index}"] = torch.get_rng_state().numpy().copy()
        np.savez(self.out / "init.npz", **self.init)


def _dropout(original, feature: bool, alpha: bool, unbatched, default: bool):
    """torch's dropout ``original`` with its mask drawn as ``torch.rand(shape) >= p`` (``shape``:
    the input's, or ``input.shape[:2]`` for a feature dropout), the draw the port's dropout
    replays; the scaling is torch's (``1/(1-p)``, or SELU's ``a``, ``b`` for alpha dropout).
    ``p`` 0 or 1, evaluation, or a rank torch rejects: ``original`` itself."""
    def dropout(input, p=0.5, training=default, inplace=False):
        rejected = (feature and input.dim() < 2) or (unbatched == 2 and input.dim() not in (2, 3))
        if not training or p in (0, 1) or rejected:
            return original(input, p, training, inplace)
        x = input.unsqueeze(0) if input.dim() == unbatched else input
        shape = tuple(x.shape[:2]) + (1,) * (x.dim() - 2) if feature else tuple(x.shape)
        keep = (torch.rand(shape) >= p).to(x.dtype).to(x.device)
        if alpha:
            a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
            out = x * (keep * a) + ((keep - 1) * (_ALPHA * a) + _ALPHA * a * p)
        else:
            out = x * keep / (1.0 - p)
        out = out.squeeze(0) if x is not input else out
        return input.copy_(out) if inplace else out
    return dropout


def _shared(backend: TorchBackend, name: str, fn):
    """``fn`` (torch's draw ``name`` from its global stream) recording the stream's state before
    each call: the port starts its ``k``-th draw from torch's state before the ``k``-th (and takes
    a normal draw's values, :meth:`TorchBackend.keep_values`)."""
    def draw(*args, **kwargs):
        counted = (kwargs.get("generator") is None and not _from_torch(sys._getframe(1))
                   and not constructing(torch.nn.Module))
        if counted:
            backend.draws.append(torch.get_rng_state().numpy().copy())
        out = fn(*args, **kwargs)
        if counted:
            backend.keep_values(name, out)
        return out
    return draw


def _noting(tracer: Tracer, name: str, fn):
    def wrapped(*args, **kwargs):
        if tracer.depth:
            tracer.note(f"{name} inside forward draws from torch's generator in a way the port does not replay: "
                        "its draws are not shared (and torch's stream is out of step after it)")
        return fn(*args, **kwargs)
    return wrapped


def _inplace_shared(tracer: Tracer, name: str, fn):
    """``Tensor.uniform_``/``normal_`` (and so ``nn.init.uniform_``/``normal_``) recording the
    stream's state before each draw, which the port's ``jt.init.uniform_``/``gauss_`` replays
    (torch's numbers are unchanged: ``shims.random_torch`` reproduces both kernels), as
    :func:`_shared` does for ``torch.rand``.  Not counted: a draw while building a model (it
    initialises weights, which the port receives), and one from torch's own code outside
    ``nn.init``; one on another dtype than float32 or with its own generator is not shared
    (noted when inside forward)."""
    def draw(self, *args, **kwargs):
        if not constructing(torch.nn.Module) and not _from_torch(sys._getframe(1)):
            if self.dtype == torch.float32 and kwargs.get("generator") is None:
                tracer.b.draws.append(torch.get_rng_state().numpy().copy())
                out = fn(self, *args, **kwargs)
                tracer.b.keep_values(name, out)
                return out
            if tracer.depth:
                tracer.note(f"Tensor.{name} inside forward on a {self.dtype} tensor or with a generator: its "
                            "draws are not shared (and torch's stream is out of step after it)")
        return fn(self, *args, **kwargs)
    return draw


def _random_shared(backend: TorchBackend, fn):
    """``Tensor.random_(from, to)``/``random_(to)`` on int64 (``torch.randint``'s kernel; StyleGAN2-ADA
    draws its style-mixing cutoff so) recording the stream's state before each draw, which the
    port's ``shims.random_`` replays; the unbounded form and other dtypes are not shared."""
    def random_(self, *args, **kwargs):
        if ((args or "to" in kwargs) and self.dtype == torch.int64 and kwargs.get("generator") is None
                and not constructing(torch.nn.Module)
                and not _from_torch(sys._getframe(1))):
            backend.draws.append(torch.get_rng_state().numpy().copy())
        return fn(self, *args, **kwargs)
    return random_


def _user_frame(frame):
    """The caller of ``nn.init.uniform_``/``normal_`` (or of the tensor method itself), past the
    device wrappers of ``cuda_as_cpu``.  Only those pass through: ``kaiming_normal_`` and the
    other initialisers stay torch's own code, as the port's ``jt.init.kaiming_normal_`` is Jittor's."""
    while frame.f_back is not None and (frame.f_code.co_filename.endswith(_INIT_FILE)
                                        and frame.f_code.co_name in _INIT_DRAWS
                                        or frame.f_code.co_filename.endswith(_DISPATCH)):
        frame = frame.f_back
    return frame


def _from_torch(frame) -> bool:
    """Whether the call ``frame`` made (a wrapper's caller) is torch's own code, looking past
    :func:`_user_frame`'s frames.  Take the frame in the wrapper itself: inside a generator
    expression ``sys._getframe(1)`` is the wrapper, not its caller."""
    return any(lib in _user_frame(frame).f_code.co_filename for lib in TORCH_LIBS)


def _zeroed(tracer: Tracer, name: str, fn):
    """``torch.empty``-like ``fn`` giving zeros when the script calls it: uninitialised memory
    holds whatever the allocator left (StyleGAN2-ADA's ``print_module_summary`` runs the generator
    on ``torch.empty`` inputs, which also move its ``w_avg``), a value no port can share; both
    sides read it as zeros.  torch's own calls (``nn.Linear`` allocating the weight it then
    initialises) stay torch's, unnoted, as the port's ``jt.empty`` leaves Jittor's and the shims'."""
    def zeroed(*args, **kwargs):
        if _from_torch(sys._getframe(1)):
            return fn(*args, **kwargs)
        tracer.note(f"{name}: its uninitialised contents read as zeros on both sides")
        t = fn(*args, **kwargs)
        with torch.no_grad():
            t.zero_()
        return t
    return zeroed


def install(tracer: Tracer) -> None:
    """Wrap torch's entry points so that they report to ``tracer``."""
    for name in EMPTY:
        setattr(torch, name, _zeroed(tracer, f"torch.{name}", getattr(torch, name)))
    torch.Tensor.new_empty = _zeroed(tracer, "Tensor.new_empty", torch.Tensor.new_empty)
    init = torch.optim.Optimizer.__init__

    def optimizer_init(self, params, *args, **kwargs):
        init(self, params, *args, **kwargs)
        tracer.on_optimizer(self, [p for g in self.param_groups for p in g["params"]])

    torch.optim.Optimizer.__init__ = optimizer_init
    register_optimizer_step_post_hook(lambda opt, args, kwargs: tracer.on_step(opt))

    def rnn_dropout(module):
        if isinstance(module, torch.nn.RNNBase) and module.training and module.dropout > 0 and module.num_layers > 1:
            tracer.note(f"{type(module).__name__}(dropout={module.dropout}) draws its inter-layer dropout inside "
                        "torch's kernel: not shared (run it with that dropout 0 to compare)")

    torch.nn.Module.__call__ = traced_call(tracer, torch.nn.Module.__call__, rnn_dropout)
    torch.autograd.backward = traced_backward(tracer, torch.autograd.backward, torch.Tensor)
    loader = torch.utils.data.DataLoader
    loader.__iter__ = traced_loader_iter(tracer, loader.__iter__)
    for name in SHARED:
        setattr(torch, name, _shared(tracer.b, name, getattr(torch, name)))
    F = torch.nn.functional
    for name, how in DROPOUTS.items():
        setattr(F, name, _dropout(getattr(F, name), *how))
    for owner, name in UNSHARED:
        mod = sys.modules[owner]
        setattr(mod, name, _noting(tracer, f"{owner}.{name}", getattr(mod, name)))
    for name in ("bernoulli_", "exponential_", "geometric_", "cauchy_", "log_normal_"):
        setattr(torch.Tensor, name, _noting(tracer, f"Tensor.{name}", getattr(torch.Tensor, name)))
    for name in INPLACE_SHARED:
        setattr(torch.Tensor, name, _inplace_shared(tracer, name, getattr(torch.Tensor, name)))
    torch.Tensor.random_ = _random_shared(tracer.b, torch.Tensor.random_)


def main(argv=None) -> int:
    """Entry point: parse, install the hooks, run the script."""
    ap = argparse.ArgumentParser(prog="run_trace_torch")
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--perturb", type=int, default=0)
    ap.add_argument("--sample", type=int, default=SAMPLE)
    ap.add_argument("--start-state", help="torch's random state to start from (a spread run starts where the "
                                          "reference did): an unseeded script draws the same numbers")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    backend = TorchBackend(out, a.perturb)
    if a.perturb:
        backend.side = f"torch (spread {a.perturb})"
    tracer = Tracer(backend, out, a.steps, a.sample)
    install(tracer)
    if a.start_state:
        torch.set_rng_state(torch.from_numpy(np.load(a.start_state)))
    np.save(out / "start_state.npy", torch.get_rng_state().numpy())
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    # a script that calls .cuda() or names a CUDA device runs on a machine without CUDA
    with cuda_as_cpu(), older_torch_apis():
        return run_script(tracer, a.script, args)


if __name__ == "__main__":
    sys.exit(main())
