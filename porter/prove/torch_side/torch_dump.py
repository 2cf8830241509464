"""Torch side of the model-parity harness: run a reference model, save everything to ``.npz``.

Runs in ``.venv-torch`` only (imported by the scripts in ``parity_tests/torch_side/``); the
Jittor side (:mod:`porter.prove.model`) reads what this writes.  One ``.npz`` per case:

===================== ====================================================================
key                   content
===================== ====================================================================
``param/<name>``      the model's ``state_dict`` (parameters and buffers) before anything ran
``input/<name>``      the seeded inputs (``meta/input_order`` keeps their positional order)
``output/<name>``     the forward outputs, flattened (:func:`flatten`)
``lossw/<name>``      seeded weights of the default loss ``sum(output * lossw)`` (both sides
                      can compute it, so gradients compare without porting a loss function)
``loss``              the scalar loss (shape ``(1,)``)
``grad/<name>``       the gradient of the loss for every trainable parameter (zeros if unused)
``step<k>/param/...`` the ``state_dict`` after ``k`` optimizer steps (``k = 1..steps``)
``step<k>/spread/...`` only for a model that cannot run in float64: how far ``k`` steps move each
                      weight apart when the start is perturbed by one float32 rounding
                      (:func:`rounding_spread`), torch's own float32 sensitivity
``grad32err/<name>``  with ``float32_spread``: torch's own float32 gradient error (against
                      float64) at starts one float32 rounding apart (:func:`float32_error_spread`)
``act/<key>``         the output of every submodule call, ``<key> = <qualname>@<call>`` plus
                      the flatten suffix; ``<qualname>`` is ``<root>`` for the model itself
``act_order``         the ``<qualname>@<call>`` keys in execution (completion) order
``meta/trainable``    names of the parameters with ``requires_grad``
===================== ====================================================================

Inputs come from numpy (:func:`seeded_array`), never from torch's RNG, so the Jittor side can
regenerate or simply read them.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from porter.prove import common
from porter.prove.common import ROOT_NAME, make_inputs, seeded_array  # noqa: F401 (re-exported for scripts)

Arrays = Dict[str, np.ndarray]


def flatten(obj: Any, prefix: str) -> List[Tuple[str, torch.Tensor]]:
    """The torch tensors inside an output (see :func:`.common.flatten` for the names)."""
    return common.flatten(obj, prefix, lambda x: isinstance(x, torch.Tensor))


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A detached float32/integer numpy copy (half and double become float32)."""
    t = t.detach().cpu()
    if t.is_floating_point():
        t = t.float()
    return t.numpy().copy()


class ActivationRecorder:
    """Forward hooks on every submodule (and the root) recording outputs in execution order.

    Used as a context manager around a forward pass; ``records`` is a list of
    ``(key, [(flattened name, numpy copy), ...])`` where key is ``<qualname>@<call index>``.
    Outputs are copied when the hook runs: a later in-place op (``LeakyReLU(inplace=True)``
    after the recorded layer) would otherwise change what was recorded.
    """

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self.records: List[Tuple[str, Any]] = []
        self.live: List[Tuple[str, torch.Tensor]] = []   # differentiable outputs, for actgrad/
        self._handles: list = []
        self._calls: Dict[str, int] = {}

    def _hook(self, name: str) -> Callable:
        def hook(_module, _inputs, output):
            k = self._calls.get(name, 0)
            self._calls[name] = k + 1
            key = f"{name}@{k}"
            flat = flatten(output, key)
            self.records.append((key, [(n, to_numpy(t)) for n, t in flat]))
            self.live.extend((n, t) for n, t in flat if t.requires_grad)
        return hook

    def __enter__(self) -> "ActivationRecorder":
        for name, module in self.model.named_modules():
            self._handles.append(module.register_forward_hook(self._hook(name or ROOT_NAME)))
        return self

    def __exit__(self, *exc) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def arrays(self) -> Tuple[Arrays, List[str]]:
        """``act/<key>[suffix]`` arrays and the ordered list of keys."""
        acts: Arrays = {}
        order: List[str] = []
        for key, flat in self.records:
            order.append(key)
            for name, a in flat:
                acts[f"act/{name}"] = a
        return acts, order


def default_forward(model: torch.nn.Module, inputs: Mapping[str, torch.Tensor]) -> Any:
    """Call the model with the inputs as positional arguments, in order."""
    return model(*inputs.values())


def weighted_sum_loss(outputs: Sequence[Tuple[str, torch.Tensor]], weights: Mapping[str, np.ndarray]
                      ) -> torch.Tensor:
    """The default loss: ``sum_i sum(output_i * lossw_i)``, a random projection of every output."""
    total = None
    for name, t in outputs:
        if not t.is_floating_point():
            continue
        term = (t * torch.from_numpy(weights[name]).to(t.dtype)).sum()
        total = term if total is None else total + term
    if total is None:
        raise ValueError("weighted_sum_loss: the model returned no floating-point output")
    return total


def make_optimizer(spec: Mapping[str, Any], params: Iterable[torch.nn.Parameter]) -> torch.optim.Optimizer:
    """A torch optimizer from ``{"name": "sgd"|"adam"|..., **kwargs}`` (the class name in
    ``torch.optim``, case-insensitive)."""
    kw = dict(spec)
    name = kw.pop("name")
    classes = {n.lower(): getattr(torch.optim, n) for n in dir(torch.optim)
               if isinstance(getattr(torch.optim, n), type)}
    if name.lower() not in classes:
        raise ValueError(f"make_optimizer: torch.optim has no optimizer {name!r}")
    return classes[name.lower()](list(params), **kw)


def _state_arrays(model: torch.nn.Module, prefix: str) -> Arrays:
    return {f"{prefix}{k}": to_numpy(v) for k, v in model.state_dict().items()}


LossFn = Callable[[Any, Mapping[str, torch.Tensor]], torch.Tensor]
ModelLossFn = Callable[[torch.nn.Module, Mapping[str, torch.Tensor], Any], torch.Tensor]


# complexity: one recording run (state, inputs, outputs, grads, steps, activations), in the Jittor side.s order
def dump(path: Union[str, Path], model: torch.nn.Module, inputs: Mapping[str, np.ndarray], *,  # noqa: C901
         forward: Callable[[torch.nn.Module, Mapping[str, torch.Tensor]], Any] = default_forward,
         loss: Optional[LossFn] = None, seed: int = 0, steps: int = 0,
         optimizer: Optional[Mapping[str, Any]] = None, record_acts: bool = True,
         float64_grads: bool = False, extra: Optional[Mapping[str, np.ndarray]] = None,
         model_loss: Optional[ModelLossFn] = None, float32_spread: bool = False) -> Path:
    """Run ``model`` on ``inputs`` and save state, inputs, outputs, grads, steps and activations.

    ``loss(outputs, inputs)`` returns a scalar tensor; by default the seeded weighted sum of every
    output (weights saved as ``lossw/``).  ``model_loss(model, inputs, outputs)`` instead (a
    spec's ``loss``): it gets the model it runs on, the float32 one or the float64 copy, so it
    can call the model again (an R1 term differentiates ``D(x)`` with respect to ``x`` with
    ``create_graph=True``).  ``steps`` optimizer steps (``optimizer`` spec, see
    :func:`make_optimizer`) follow, each a fresh forward/loss/backward/step on the same inputs.
    ``float64_grads`` also saves the loss and the parameter gradients computed in float64 (a
    double copy of the model on the same inputs and loss weights, stored as float64 under
    ``loss64`` and ``grad64/``): see :func:`float64_gradients`; with ``float32_spread``, also
    torch's own float32 gradient error at starts one rounding apart (``grad32err/``, see
    :func:`float32_error_spread`).  ``extra`` arrays are saved as
    they are (e.g. injected noise).  Returns the ``.npz`` path.
    """
    path = Path(path)
    if model_loss is not None:
        if loss is not None:
            raise ValueError("dump: give loss or model_loss, not both")
        loss = bind_loss(model_loss, model)
    arrays: Arrays = {}
    arrays.update(_state_arrays(model, "param/"))
    # A forward pass may change buffers (StyleGAN2's w_avg moves on every training-mode call):
    # the float64 copy and the optimizer steps start again from the saved state, as the Jittor
    # side starts each check from it.
    initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
    # The float64 copy is taken before any forward: a module that keeps a non-leaf tensor as an
    # attribute after forward (HiSD's AdaIN) cannot be deep-copied any more.
    pristine, copy_error = None, ""
    if float64_grads:
        try:
            pristine = copy_model(model)
        except Exception as e:
            copy_error = f"{type(e).__name__}: {e}"
    arrays.update({f"input/{k}": v for k, v in inputs.items()})
    arrays["meta/input_order"] = np.array(list(inputs), dtype=str)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    arrays["meta/trainable"] = np.array(trainable, dtype=str)
    tin = {k: torch.from_numpy(v.copy()) for k, v in inputs.items()}

    recorder = ActivationRecorder(model)
    if record_acts:
        with recorder:
            out = forward(model, tin)
    else:
        out = forward(model, tin)
    flat = flatten(out, "out")
    arrays.update({f"output/{n}": to_numpy(t) for n, t in flat})
    if record_acts:
        acts, order = recorder.arrays()
        arrays.update(acts)
        arrays["act_order"] = np.array(order, dtype=str)

    weights = {n: seeded_array(tuple(t.shape), common.loss_weight_seed(seed, i)) for i, (n, t) in enumerate(flat)}
    arrays.update({f"lossw/{n}": w for n, w in weights.items()})

    def compute_loss(o: Any) -> torch.Tensor:
        return loss(o, tin) if loss is not None else weighted_sum_loss(flatten(o, "out"), weights)

    params = dict(model.named_parameters())
    value = compute_loss(out)
    live = recorder.live if record_acts else []
    try:
        grads = torch.autograd.grad(value, [params[n] for n in trainable] + [t for _, t in live],
                                    allow_unused=True)
    except RuntimeError:  # an output later modified in place: no activation gradients
        live = []
        grads = torch.autograd.grad(value, [params[n] for n in trainable], allow_unused=True)
    for (n, _), g in zip(live, grads[len(trainable):]):
        if g is not None:
            arrays[f"actgrad/{n}"] = to_numpy(g)
    grads = grads[:len(trainable)]
    arrays["loss"] = to_numpy(value).reshape(1)
    for n, g in zip(trainable, grads):
        arrays[f"grad/{n}"] = to_numpy(g) if g is not None else np.zeros(tuple(params[n].shape), np.float32)

    if steps and optimizer is None:
        raise ValueError("dump: steps > 0 needs an optimizer spec")
    model.load_state_dict(initial)
    if float64_grads:
        try:
            if pristine is None:
                raise RuntimeError(f"the model cannot be copied: {copy_error}")
            def loss_for(m: torch.nn.Module) -> Optional[LossFn]:
                return bind_loss(model_loss, m) if model_loss is not None else loss

            if float32_spread:  # copies of the pristine model: before its own float64 run below
                try:
                    arrays.update(float32_error_spread(pristine, forward, tin, trainable, loss_for, weights))
                except Exception as e:  # judged by the one draw torch's own run gives
                    arrays["meta/float32_spread_error"] = np.array(f"{type(e).__name__}: {e}"[:500])
            arrays.update(float64_gradients(pristine, forward, tin, trainable, loss_for(pristine), weights, steps,
                                            optimizer))
        except Exception as e:  # a model that cannot run in double: float32 judging only
            arrays["meta/float64_error"] = np.array(f"{type(e).__name__}: {e}"[:500])

    if steps:
        opt = make_optimizer(optimizer, [params[n] for n in trainable])
        arrays["meta/optimizer"] = np.array(repr(dict(optimizer)))
        for k in range(1, steps + 1):
            opt.zero_grad()
            compute_loss(forward(model, tin)).backward()
            opt.step()
            arrays.update(_state_arrays(model, f"step{k}/param/"))
        if "meta/float64_error" in arrays:  # no float64 steps to judge float32 by: torch's own spread
            arrays.update(rounding_spread(model, initial, lambda: compute_loss(forward(model, tin)), trainable,
                                          steps, optimizer, {k: v for k, v in arrays.items() if "/param/" in k}))
    if extra:
        arrays.update(extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)
    return path


def copy_model(model: torch.nn.Module) -> torch.nn.Module:
    """``copy.deepcopy(model)``, with the non-leaf tensors its modules keep as plain attributes
    copied detached (torch refuses to deep-copy those).  ``torch.nn.utils.weight_norm`` keeps
    such a ``weight`` (NeuS's SDF and colour networks), recomputed from ``weight_g`` and
    ``weight_v`` by a hook before every forward, so the detached copy is never read stale."""
    memo: Dict[int, Any] = {}
    for m in model.modules():
        for v in vars(m).values():
            if isinstance(v, torch.Tensor) and not v.is_leaf:
                memo[id(v)] = v.detach().clone()
    return copy.deepcopy(model, memo)


#: Seeds of the perturbed starts :func:`rounding_spread` runs.
SPREAD_SEEDS = (1, 2, 3)


def rounding_perturbed(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Floating ``t`` with each element multiplied by ``1 + 2**-23 * N(0, 1)`` from ``rng``: one
    float32 rounding's worth of noise, the start of a run that measures torch's own float32
    sensitivity (:func:`rounding_spread`, the whole-script checks of ``torch_side/scripts.py``)."""
    noise = torch.from_numpy(rng.standard_normal(tuple(t.shape))).to(t.dtype)
    return t * (1 + 2.0 ** -23 * noise)


def rounding_spread(model: torch.nn.Module, initial: Mapping[str, torch.Tensor], loss: Callable[[], torch.Tensor],
                    trainable: Sequence[str], steps: int, optimizer: Mapping[str, Any],
                    stepped: Mapping[str, np.ndarray]) -> Arrays:
    """``step<k>/spread/<name>``: the largest difference, over :data:`SPREAD_SEEDS`, between the
    state after ``k`` optimizer steps (``stepped``: ``step<k>/param/<name>``) and the same steps
    from a start whose trainable weights are each multiplied by ``1 + 2**-23 * N(0, 1)`` (one
    float32 rounding).  For code that cannot run in double (StyleGAN2-ADA casts to float32
    inside) this is what float32 itself decides of the steps: the Jittor side allows a port
    that many times this spread where the float32 steps differ (``ModelParity.check_steps``)."""
    params = dict(model.named_parameters())
    spread: Arrays = {}
    for seed in SPREAD_SEEDS:
        model.load_state_dict(initial)
        rng = np.random.default_rng(seed)
        with torch.no_grad():
            for n in trainable:
                p = params[n]
                if p.is_floating_point():
                    p.copy_(rounding_perturbed(p, rng))
        opt = make_optimizer(optimizer, [params[n] for n in trainable])
        for k in range(1, steps + 1):
            opt.zero_grad()
            loss().backward()
            opt.step()
            for key, v in _state_arrays(model, f"step{k}/param/").items():
                if key in stepped and np.issubdtype(v.dtype, np.floating):
                    name = key.replace("/param/", "/spread/", 1)
                    diff = np.abs(v.astype(np.float64) - stepped[key]).astype(np.float32)
                    spread[name] = np.maximum(spread[name], diff) if name in spread else diff
    model.load_state_dict(initial)
    return spread


def float32_gradients(model: torch.nn.Module, forward: Callable[[torch.nn.Module, Mapping[str, torch.Tensor]], Any],
                      tin: Mapping[str, torch.Tensor], trainable: Sequence[str], loss: Optional[LossFn],
                      weights: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """The gradient of the loss (``loss``, else the seeded weighted sum of the outputs) for each
    of ``trainable``, as float64 arrays (zeros where the loss does not use a parameter)."""
    out = forward(model, tin)
    value = loss(out, tin) if loss is not None else weighted_sum_loss(flatten(out, "out"), weights)
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(value, [params[n] for n in trainable], allow_unused=True)
    return {n: (g.detach().double().numpy() if g is not None else np.zeros(tuple(params[n].shape)))
            for n, g in zip(trainable, grads)}


def float32_error_spread(model: torch.nn.Module, forward: Callable[[torch.nn.Module, Mapping[str, torch.Tensor]], Any],
                         tin: Mapping[str, torch.Tensor], trainable: Sequence[str],
                         loss_for: Callable[[torch.nn.Module], Optional[LossFn]],
                         weights: Mapping[str, np.ndarray]) -> Arrays:
    """``grad32err/<name>``: the largest error of torch's float32 gradient against its float64
    one, over starts whose trainable weights are each multiplied by ``1 + 2**-23 * N(0, 1)``
    (:data:`SPREAD_SEEDS`), each start's float32 gradient against the float64 gradient at that
    same start.  ``model`` is not run (copies are); ``loss_for(copy)`` is the loss of a copy.

    Torch's own float32 error on the reference's start is one draw.  Where the gradient jumps
    within float32 rounding of the start (an L1 of two near-equal images: StarGAN v2's
    diversity term, ``mean |G(x, s1) - G(x, s2)|`` at initialisation, has pixels 1e-7 apart
    while float32 computes the images 1e-6 apart), the draw decides how many signs float32
    gets wrong: torch flips none on the reference's start and one at 7 of 8 starts one
    rounding away, which moves its error 14-31x (the decoder's convolution weights).  The port
    is judged against this spread, not against torch's luckiest draw."""
    errors: Dict[str, float] = {}
    with torch.random.fork_rng(devices=[]):  # the reference's own later draws stay where they were
        for seed in SPREAD_SEEDS:
            start = copy_model(model)
            params = dict(start.named_parameters())
            rng = np.random.default_rng(seed)
            with torch.no_grad():
                for n in trainable:
                    if params[n].is_floating_point():
                        params[n].copy_(rounding_perturbed(params[n], rng))
            g32 = float32_gradients(start, forward, tin, trainable, loss_for(start), weights)
            g64 = float64_gradients(start, forward, tin, trainable, loss_for(start), weights)
            for n in trainable:
                err = float(np.abs(g32[n] - g64[f"grad64/{n}"]).max()) if g32[n].size else 0.0
                errors[n] = max(errors.get(n, 0.0), err)
    return {f"grad32err/{n}": np.array(e, np.float64) for n, e in errors.items()}


def bind_loss(model_loss: ModelLossFn, model: torch.nn.Module) -> LossFn:
    """``model_loss(model, inputs, outputs)`` as the ``loss(outputs, inputs)`` of one model."""
    return lambda outputs, inputs: model_loss(model, inputs, outputs)


def float64_gradients(model: torch.nn.Module, forward: Callable[[torch.nn.Module, Mapping[str, torch.Tensor]], Any],
                      tin: Mapping[str, torch.Tensor], trainable: Sequence[str], loss: Optional[LossFn],
                      weights: Mapping[str, np.ndarray], steps: int = 0,
                      optimizer: Optional[Mapping[str, Any]] = None) -> Arrays:
    """``loss64``, ``output64/<name>`` and ``grad64/<name>`` (float64 arrays): the loss, the
    floating-point outputs and the parameter gradients recomputed on ``model`` (a copy the
    caller took for this: it is turned to float64 and trained);
    with ``steps``, the state after each of that many ``optimizer`` steps in float64
    (``step<k>/param64/<name>``).

    Optimizer steps need it as much as gradients: Adam's first step, ``lr * g / (|g| + eps)``,
    moves every weight by about ``lr`` whatever the size of ``g``, so a gradient that is zero up
    to rounding (a bias before an instance norm: HiSD's translators, StarGAN v2's encoder)
    moves a float32 weight by ``lr`` in a direction rounding chose.

    For gradients that float32 cannot decide: a ReLU input within float32 rounding of zero may
    fall on either side of the kink in two correct implementations, and then the whole gradient
    flowing through it is passed in one and blocked in the other (measured on MCCNet's VGG
    encoder: one of 16,384 relu5_2 inputs, 1.2e-6 in torch and -1e-6 with oneDNN's
    convolutions, moved enc_5.4's weight gradient by 6% relative).  In float64 the rounding is
    ~1e9 times smaller, so the sides agree on every kink and the comparison is exact again."""
    double = model.double()
    t64 = {k: (v.double() if v.is_floating_point() else v) for k, v in tin.items()}
    w64 = {k: v.astype(np.float64) for k, v in weights.items()}

    def compute_loss(o: Any) -> torch.Tensor:
        return loss(o, t64) if loss is not None else weighted_sum_loss(flatten(o, "out"), w64)

    initial = copy.deepcopy(double.state_dict())
    out = forward(double, t64)
    value = compute_loss(out)
    params = dict(double.named_parameters())
    grads = torch.autograd.grad(value, [params[n] for n in trainable], allow_unused=True)
    arrays: Arrays = {"loss64": value.detach().double().numpy().reshape(1).copy()}
    arrays.update({f"output64/{n}": t.detach().double().numpy().copy()
                   for n, t in flatten(out, "out") if t.is_floating_point()})
    for n, g in zip(trainable, grads):
        arrays[f"grad64/{n}"] = (g.detach().double().numpy().copy() if g is not None
                                 else np.zeros(tuple(params[n].shape), np.float64))
    if steps:
        double.load_state_dict(initial)
        opt = make_optimizer(optimizer, [params[n] for n in trainable])
        for k in range(1, steps + 1):
            opt.zero_grad()
            compute_loss(forward(double, t64)).backward()
            opt.step()
            arrays.update({f"step{k}/param64/{n}": t.detach().double().numpy().copy()
                           for n, t in double.state_dict().items() if t.is_floating_point()})
    return arrays


def out_dir_from_argv(argv: Optional[Sequence[str]] = None) -> Path:
    """Parse the ``--out DIR`` that :func:`porter.prove.torchside.run_torch` passes."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    args, _ = ap.parse_known_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    return args.out


def deterministic(seed: int) -> None:
    """Seed torch and use deterministic single-threaded-equivalent kernels for references."""
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)



@contextlib.contextmanager
def shared_random(stream: common.SeededStream):
    """Within the block, every random draw a forward pass can make (``torch.randn``,
    ``torch.rand``, ``nn.init.normal_/normal/uniform_/uniform``) comes from ``stream``, which
    the Jittor side replays with ``random_patches.shared_random``: MCCNet's ``Net.forward`` draws its
    content noise with ``nn.init.normal``."""
    init = torch.nn.init

    def fill(t, values):
        with torch.no_grad():
            return t.copy_(torch.from_numpy(values))

    def normal_(t, mean=0.0, std=1.0, *_, **__):
        return fill(t, float(mean) + float(std) * stream.normal(tuple(t.shape)))

    def uniform_(t, a=0.0, b=1.0, *_, **__):
        return fill(t, stream.uniform(tuple(t.shape), float(a), float(b)))

    def rand(*size, dtype=None, **_):
        t = torch.from_numpy(stream.uniform(common.size_args(size)))
        return t.to(dtype) if dtype is not None else t

    patches = [(init, "normal_", normal_), (init, "normal", normal_), (init, "uniform_", uniform_),
               (init, "uniform", uniform_), (torch, "rand", rand)]
    with common.patched(patches), patched_randn(stream):
        yield stream


@contextlib.contextmanager
def patched_randn(stream: common.SeededStream):
    """Within the block, ``torch.randn(*size, ...)`` draws from ``stream`` (a shared-seed numpy
    stream the Jittor side replays with ``model.patched_randn``)."""
    def randn(*size, dtype=None, device=None, **_):
        t = torch.from_numpy(stream.normal(common.size_args(size)))
        return t.to(dtype) if dtype is not None else t

    with common.patched([(torch, "randn", randn)]):
        yield stream
