"""torch's gradient model on Jittor: one gradient store, ``.grad`` on every leaf, ``backward()``.

Jittor keeps gradients inside its optimizers (``opt.backward(loss)``, ``p.opt_grad(opt)``) and
its ``Var.grad``/``Var.backward`` only raise.  Importing ``shims`` gives Jittor's ``Var`` torch's
model instead:

* every leaf that requires grad (a module parameter, a tensor given to an optimizer, one made
  trainable with ``requires_grad_()``, ``x.requires_grad = True`` or ``start_grad()``) has a
  ``.grad``: ``None`` until a backward reaches it, then a Var that can be read, edited in place
  (``p.grad.nan_to_num_()``, ``p.grad.mul_(s)``), replaced (``p.grad = g``) and cleared
  (``p.grad = None``);
* ``loss.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`` (also
  :func:`backward`, torch's ``torch.autograd.backward``) accumulates the gradient of ``loss``
  into the ``.grad`` of every leaf it reaches, with or without an optimizer; a leaf it does not
  reach keeps its ``.grad`` (``None`` if it had none), as in torch;
* ``shims.optim`` optimizers step from ``.grad`` (a parameter whose ``.grad`` is ``None`` is
  skipped, as torch does) and ``zero_grad(set_to_none=...)`` clears it as torch does;
* ``x.requires_grad`` of a computed Var follows torch: True iff a leaf that requires grad reaches
  it (Jittor says True for every op output);
* ``x.register_hook(fn)`` on a leaf runs ``fn`` on each gradient before it is accumulated (on an
  intermediate, Jittor's hook node; see :func:`register_hook`); it returns a handle with
  ``remove()``; ``x.retain_grad()`` keeps a non-leaf's gradient in its ``.grad``.

Which leaves exist: every ``jittor.Module`` ever constructed is tracked (weakly, in creation
order) and its Var attributes are its parameters, as in Jittor; tensors made trainable
explicitly and the parameters of optimizers are held in a registry that forgets a Var once
nothing else refers to it.  A gradient is computed lazily, as everything in Jittor: the
gradient a backward leaves in a ``.grad`` nobody reads (a discriminator's, in a generator step
that does not freeze it) is never computed, and is dropped with the next ``zero_grad``.

Jittor facts this relies on (1.3.11): ``Var`` instances carry a Python attribute dict; ``Var``
is a heap type, so properties can be installed on it; ``start_grad()`` rebinds the Var to a new
node, so graphs built while a parameter was frozen stay frozen (torch's ``requires_grad_``
toggles are exact); ``jt.grad`` returns zeros for targets the loss does not reach, and
:func:`grads_reached` tells them apart without Jittor's log line.
"""
from __future__ import annotations

import operator
import sys
import weakref
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import jittor as jt

__all__ = ["backward", "grads_reached", "leaves", "register_leaf", "register_hook", "zero_grads", "RemovableHandle",
           "Function"]

_GRAD = "_jtport_grad"      # the stored gradient (a Var) of a leaf
_LEAF = "_jtport_leaf"      # True on a Var known to be a leaf that requires grad
_HOOKS = "_jtport_hooks"    # a leaf's gradient hooks, in registration order
_hooks_registered = False   # whether any Var ever had a hook: backward looks for hooks only then

_C_REQUIRES_GRAD = jt.Var.__dict__["requires_grad"]  # Jittor's getset: not is_stop_grad()
_C_START_GRAD = jt.Var.start_grad
_C_ASSIGN = jt.Var.assign
_JT_DEEPCOPY = jt.Var.__deepcopy__
_C_UPDATE = jt.Var.update
_JT_REGISTER_HOOK = jt.Var.register_hook
_JT_BUFFERS = frozenset(("running_mean", "running_var", "num_batches_tracked"))


# ---------------------------------------------------------------------------------------------
# Which leaves exist

_modules: List["weakref.ref"] = []     # every jittor.Module constructed, in creation order
_modules_pruned_at = 64
_explicit: Dict[int, jt.Var] = {}      # leaves made trainable explicitly, optimizer params, retain_grad
_explicit_pruned_at = 64


def _track_module(module) -> None:
    global _modules_pruned_at
    _modules.append(weakref.ref(module))
    if len(_modules) >= 2 * _modules_pruned_at:
        _modules[:] = [r for r in _modules if r() is not None]
        _modules_pruned_at = max(64, len(_modules))


def _module_new(cls, *args, **kwargs):
    obj = super(jt.Module, cls).__new__(cls)
    _track_module(obj)
    return obj


def _refcounts(d: dict) -> List[Tuple[int, int]]:
    return [(k, sys.getrefcount(v)) for k, v in d.items()]


def _refcount_floor() -> int:
    """What :func:`_refcounts` says of an object that only the dict holds."""
    probe: Dict[int, object] = {}
    probe[0] = object()
    return _refcounts(probe)[0][1]


def _prune() -> None:
    """Forget explicit leaves nothing but the registry refers to (their ``.grad`` is unreachable)."""
    global _explicit_pruned_at
    dead = [k for k, n in _refcounts(_explicit) if n <= _FLOOR]
    for k in dead:
        del _explicit[k]
    _explicit_pruned_at = max(64, len(_explicit))


def register_leaf(v: jt.Var) -> jt.Var:
    """Make ``v`` a leaf of the store: backward passes that reach it accumulate into ``v.grad``."""
    if not isinstance(v, jt.Var):
        return v
    _explicit[id(v)] = v
    setattr(v, _LEAF, True)
    if not hasattr(v, _GRAD):
        setattr(v, _GRAD, None)  # read each step (optimizers): a missing attribute costs an exception
    if len(_explicit) >= 2 * _explicit_pruned_at:
        _prune()
    return v


def _trainable(v: jt.Var) -> bool:
    return not v.is_stop_grad() and v.dtype.is_float()


def leaves() -> List[jt.Var]:
    """Every live leaf that requires grad, in a deterministic order: module parameters in the
    order their modules were constructed, then the explicit leaves in registration order."""
    global _modules_pruned_at
    out: Dict[int, jt.Var] = {}  # by id: a Var shared by modules (tied weights) counts once
    dead = False
    var, plist = jt.Var, jt.nn.ParameterList
    for ref in _modules:
        m = ref()
        if m is None:
            dead = True
            continue
        for k, v in (m.params if isinstance(m, plist) else m.__dict__).items():
            if type(v) is var and not v.is_stop_grad() and v.dtype.is_float() \
                    and not (isinstance(k, str) and k.startswith("_")):
                out.setdefault(id(v), v)
    if dead:
        _modules[:] = [r for r in _modules if r() is not None]
        _modules_pruned_at = max(64, len(_modules))
    _prune()
    for k, v in _explicit.items():
        if k not in out and _trainable(v):
            out[k] = v
    return list(out.values())


# ---------------------------------------------------------------------------------------------
# jt.grad that says which targets the loss reached

def grads_reached(loss: jt.Var, targets: Sequence[jt.Var], retain_graph: bool = False
                  ) -> Tuple[List[jt.Var], List[bool]]:
    """``jt.grad(loss, targets)`` plus, per target, whether the loss depends on it at all.

    How: an extra target the loss cannot reach goes first.  Jittor creates the zero gradients of
    unreached targets after every real gradient, in target order, so a target is unreached
    exactly when its gradient Var is not older than the probe's.  Jittor's log line for an
    unreached target ("doesn't have gradient. It will be set to zero") is silenced meanwhile
    (``log_silent``: one flag, where renaming every target cost two calls per target)."""
    probe = jt.zeros(1)
    flags = jt.flags
    silent = flags.log_silent
    flags.log_silent = 1
    try:
        grads = jt.grad(loss, [probe, *targets], retain_graph)
    finally:
        flags.log_silent = silent
    first_unreached = grads[0].id
    del grads[0]
    return grads, [g.id < first_unreached for g in grads]


# ---------------------------------------------------------------------------------------------
# backward


def _as_list(x) -> list:
    if x is None:
        return []
    if isinstance(x, jt.Var):
        return [x]
    return list(x)


def _loss_of(tensors: List[jt.Var], grad_tensors: list) -> jt.Var:
    """torch's ``sum_i <tensors_i, grad_tensors_i>`` as one scalar Jittor loss."""
    if grad_tensors and len(grad_tensors) != len(tensors):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs: got {len(tensors)} "
                           f"tensors and {len(grad_tensors)} gradients")
    loss = None
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors else None
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            term = t.sum()
        else:
            if not isinstance(g, jt.Var):
                g = jt.array(g)
            term = (t * g.cast(t.dtype)).sum()
        loss = term if loss is None else loss + term
    return loss


def backward(tensors, grad_tensors=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """``torch.autograd.backward``: accumulate the gradient of ``sum <tensors, grad_tensors>`` into
    the ``.grad`` of every leaf it reaches (only of ``inputs`` when given).

    ``retain_graph`` defaults to ``create_graph``; with ``create_graph=True`` the stored gradients
    keep their graph (a later backward through them differentiates twice).  As in torch, a
    loss that no leaf requiring grad reaches raises RuntimeError."""
    tensors = _as_list(tensors)
    if not tensors:
        raise RuntimeError("backward(): no tensors to differentiate")
    if grad_tensors is None:
        grad_tensors = grad_variables
    if isinstance(grad_tensors, jt.Var):
        grad_tensors = [grad_tensors]
    loss = _loss_of(tensors, list(grad_tensors) if grad_tensors is not None else [])
    if retain_graph is None:
        retain_graph = create_graph
    explicit_inputs = inputs is not None
    targets = [v for v in _as_list(inputs)] if explicit_inputs else leaves()
    if explicit_inputs:
        if not targets:
            raise RuntimeError("backward(): 'inputs' argument to backward() cannot be empty")
        for t in targets:
            if not t.dtype.is_float():
                raise RuntimeError("backward(): only floating point inputs can require gradients")
    if loss.is_stop_grad() or not targets:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    jt.sync(targets)  # pending parameter updates: the new gradients start from their values
    grads, reached = grads_reached(loss, targets, retain_graph)
    if not explicit_inputs and not any(reached):
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    _accumulate(targets, grads, reached, create_graph)


#: :mod:`shims.distributed`, which registers itself when imported (:func:`use_distributed`): it
#: sits above this module (its data-parallel modules are ``Module`` subclasses), so this module
#: is handed it instead of importing it.
_distributed = None


def use_distributed(module) -> None:
    """Let backward average data-parallel gradients under MPI through ``module``
    (:mod:`shims.distributed`: ``_in_mpi()``, ``average_gradients(totals, reached)``)."""
    global _distributed
    _distributed = module


def _accumulate(targets: List[jt.Var], grads: List[jt.Var], reached: List[bool], create_graph: bool) -> None:
    """Add each reached target's gradient to its ``.grad`` (hooks first), as torch's
    AccumulateGrad: in place without ``create_graph``, out of place (keeping the graph) with it.
    Under MPI, data-parallel modules average their parameters' gradients first."""
    if _distributed is not None and _distributed._in_mpi():
        _accumulate_averaged(targets, grads, reached, create_graph, _distributed)
        return
    for p, g, r in zip(targets, grads, reached):
        if r:
            g = _hooked(p, g, create_graph)
            old = getattr(p, _GRAD, None)
            _store(p, old, g if old is None else old + g, create_graph)


def _hooked(p: jt.Var, g: jt.Var, create_graph: bool, run_hooks: bool = True) -> jt.Var:
    """The gradient ``g`` of ``p`` after ``p``'s hooks (with ``run_hooks``), detached unless
    ``create_graph``."""
    own = True  # g is jt.grad's: its flags are ours to set
    if run_hooks and _hooks_registered:  # a getattr that misses raises inside (~0.7 us a call)
        for hook in list(getattr(p, _HOOKS, ())):
            new = hook(g)
            if new is not None:
                g, own = new, False
    if not create_graph and not g.is_stop_grad():
        g = g.stop_grad() if own else g.detach()
    return g


def _store(p: jt.Var, old: Optional[jt.Var], total: jt.Var, create_graph: bool) -> None:
    """Make ``total`` (``old`` plus this backward's gradient) ``p``'s ``.grad``."""
    if old is None or create_graph:
        setattr(p, _GRAD, total)
    else:
        old.update(total)  # in place: a Var the code holds (g = p.grad) sees the sum


def _accumulate_averaged(targets, grads, reached, create_graph: bool, distributed) -> None:
    """:func:`_accumulate` under MPI: every target's total (an unreached one's with Jittor's zero
    gradient, so that every process reduces the same parameters) goes through
    ``distributed.average_gradients``; then the reached ones are stored."""
    totals: Dict[int, jt.Var] = {}
    got: Dict[int, bool] = {}
    olds: Dict[int, Optional[jt.Var]] = {}
    by_id: Dict[int, jt.Var] = {}
    for p, g, r in zip(targets, grads, reached):
        k = id(p)
        g = _hooked(p, g, create_graph, run_hooks=r)
        old = olds[k] = getattr(p, _GRAD, None)
        totals[k], got[k], by_id[k] = (g if old is None else old + g), r, p
    # torch's reducer all-reduces .grad after each backward outside no_sync
    distributed.average_gradients(totals, got)
    for k, total in totals.items():
        if got[k]:
            _store(by_id[k], olds[k], total, create_graph)


def _var_backward(self, gradient=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
                  inputs=None) -> None:
    """torch's ``Tensor.backward``: see :func:`backward`."""
    backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs=inputs)


# ---------------------------------------------------------------------------------------------
# .grad, requires_grad, is_leaf, hooks


def _get_grad(self) -> Optional[jt.Var]:
    return getattr(self, _GRAD, None)


def _set_grad(self, value) -> None:
    if value is not None:
        if not isinstance(value, jt.Var):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(f"assigned grad has data of a different size: {tuple(value.shape)} "
                               f"vs the tensor's {tuple(self.shape)}")
        if str(value.dtype) != str(self.dtype):
            raise RuntimeError(f"assigned grad has data of a different type: {value.dtype} vs the "
                               f"tensor's {self.dtype}")
    setattr(self, _GRAD, value)


def _del_grad(self) -> None:
    setattr(self, _GRAD, None)


def _reaches_leaf(v: jt.Var) -> bool:
    """True when a backward from ``v`` reaches a leaf that requires grad (torch's requires_grad
    of a computed tensor)."""
    targets = leaves()
    if any(t is v for t in targets):
        setattr(v, _LEAF, True)
        return True
    if not targets:
        return False
    _, reached = grads_reached(v.sum(), targets, True)
    return any(reached)


def _get_requires_grad(self) -> bool:
    if self.is_stop_grad() or not self.dtype.is_float():
        return False
    if getattr(self, _LEAF, False):
        return True
    return _reaches_leaf(self)


def _set_requires_grad(self, flag) -> None:
    _C_REQUIRES_GRAD.__set__(self, bool(flag))
    if flag:
        register_leaf(self)


def _start_grad(self):
    _C_START_GRAD(self)
    register_leaf(self)
    return self


def _requires_grad_(self, requires_grad: bool = True):
    """``Tensor.requires_grad_(flag)``: in place; returns the Var (``x = x.requires_grad_()``)."""
    _set_requires_grad(self, requires_grad)
    return self


def _is_leaf(self) -> bool:
    """torch's ``is_leaf``: a tensor that does not require grad, or a leaf that does."""
    requires = _get_requires_grad(self)  # marks a leaf found among the store's leaves
    return not requires or bool(getattr(self, _LEAF, False))


def _retain_grad(self) -> None:
    """torch's ``retain_grad``: backward passes keep this (computed) Var's gradient in ``.grad``."""
    if not _get_requires_grad(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    _explicit[id(self)] = self


class RemovableHandle:
    """What ``register_hook`` returns: ``remove()`` stops the hook."""

    def __init__(self, remove: Callable[[], None]):
        self._remove = remove

    def remove(self) -> None:
        self._remove()

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> bool:
        self.remove()
        return False


def register_hook(v: jt.Var, hook: Callable) -> RemovableHandle:
    """torch's ``Tensor.register_hook(hook)``: ``hook(grad)`` runs on each gradient computed for
    ``v``; a non-None return replaces that gradient.

    On a leaf (a parameter, a tensor made trainable) the hook runs before the gradient is
    accumulated into ``.grad``, as torch does, on every backward.  On a computed Var, Jittor's
    ``Var.register_hook`` inserts a hook node: Vars computed from ``v`` after the call send
    their gradients through it (torch's hook also sees the gradient of uses made before the
    call; register hooks right after computing ``v``, as models do); with ``retain_grad()`` the
    retained ``.grad`` is the hooked gradient, as torch's (the hook then runs twice per
    backward).  Returns a handle whose ``remove()`` stops the hook."""
    global _hooks_registered
    if not _get_requires_grad(v):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    _hooks_registered = True
    hooks = getattr(v, _HOOKS, None)
    if hooks is None:
        hooks = []
        setattr(v, _HOOKS, hooks)
    hooks.append(hook)  # run on the gradient accumulated into v.grad (a leaf, or retain_grad)
    on = [True]

    def remove():
        on[0] = False
        if hook in hooks:
            hooks.remove(hook)

    if not getattr(v, _LEAF, False):
        def hooked(g):
            return hook(g) if on[0] else None

        _JT_REGISTER_HOOK(v, hooked)
    return RemovableHandle(remove)


def _keeping_requires_grad(c_method, name: str):
    """``assign``/``update`` that leave a Var requiring grad when it did: torch's in-place writes
    (``p.sub_(lr * p.grad)``, ``w -= ...``, ``p.zero_()``, ``p.copy_(x)`` under ``no_grad``) keep
    ``requires_grad``; Jittor's take the new value's flag, and a value computed under
    ``no_grad`` is gradient-stopped: the parameter froze (measured)."""
    def method(self, v):
        trainable = not self.is_stop_grad()
        out = c_method(self, v)
        if trainable and self.is_stop_grad():
            _C_START_GRAD(self)
        return out

    method.__name__ = name
    method.__doc__ = f"Jittor's ``Var.{name}``, keeping requires_grad (shims.autograd)."
    return method


def _deepcopy(self, memo):
    """``copy.deepcopy`` of a Var as torch's: the copy keeps ``requires_grad`` (Jittor's is
    always trainable) and a copy of ``.grad``."""
    result = _JT_DEEPCOPY(self, memo)
    if self.is_stop_grad():
        result.stop_grad()
    elif getattr(self, _LEAF, False):
        register_leaf(result)
    g = getattr(self, _GRAD, None)
    if g is not None:
        setattr(result, _GRAD, _JT_DEEPCOPY(g, memo).stop_grad())
    return result


def _inplace_binary(op):
    def method(self, other):
        return self.assign(op(self, other))

    return method


def zero_grads(params, set_to_none: bool = True) -> None:
    """torch's ``zero_grad`` on ``params``: ``.grad = None``, or zeroed in place (and detached)."""
    for p in params:
        g = getattr(p, _GRAD, None)
        if g is None:
            continue
        if set_to_none:
            setattr(p, _GRAD, None)
        else:
            g.assign(jt.zeros(g.shape, g.dtype).stop_grad())


def _module_zero_grad(self, set_to_none: bool = True) -> None:
    """torch's ``Module.zero_grad`` for Jittor's own modules."""
    zero_grads(self.parameters(), set_to_none)


def _module_requires_grad_(self, requires_grad: bool = True):
    """torch's ``Module.requires_grad_`` for Jittor's own modules: set every parameter's flag
    (Jittor's runs the module's forward under ``no_grad``, which also cuts the gradient to its
    inputs: a frozen discriminator would pass none to the generator)."""
    for name, p in self.named_parameters():
        if name.rsplit(".", 1)[-1] in _JT_BUFFERS:
            continue  # Jittor keeps its norm layers' running statistics among the parameters
        p.requires_grad = bool(requires_grad)
    return self


class Function(jt.Function):
    """torch's ``autograd.Function`` on Jittor, double backward included (the custom-function
    rule's base class; ``execute``/``grad`` as in ``jt.Function``).

    ``jt.Function`` runs ``execute`` on stop-grad copies of its inputs, so whatever ``execute``
    keeps for ``grad`` (``ctx.saved_tensors``, ``ctx.x = x``) is cut from the graph and a
    gradient of a gradient loses every term that flows through them (torch keeps them: a
    custom backward made of differentiable ops is differentiated). Here ``execute`` runs on the
    inputs themselves; the outputs' first-order gradient still flows only through ``grad``
    (the outputs handed back are copies that Jittor's tape joins to the inputs), while the
    tensors ``grad`` reads keep their graph to the inputs.

    ``ctx.mark_non_differentiable`` and ``ctx.set_materialize_grads`` keep torch's meaning: a
    marked output leaves without a gradient, and ``grad`` receives zeros of an output's shape
    for every output gradient that is not there (None once materialising is turned off).
    """

    def mark_non_differentiable(self, *outputs) -> None:
        """torch's ``ctx.mark_non_differentiable``: these outputs of ``execute`` get no gradient."""
        self._jtport_non_diff = getattr(self, "_jtport_non_diff", ()) + tuple(id(v) for v in outputs)

    def set_materialize_grads(self, value: bool) -> None:
        """torch's ``ctx.set_materialize_grads``: whether a missing output gradient reaches
        ``grad`` as zeros of the output's shape (torch's default) or as None."""
        self._jtport_materialize = bool(value)

    def _grad(self, *args):
        """Jittor's ``_grad`` given one gradient per output: the taped outputs' (``args``), then
        the non-differentiable ones' (see ``__call__``'s output mask), missing ones as zeros."""
        grads = list(args) + [None] * (len(self._jtport_outputs) - len(args))
        if getattr(self, "_jtport_materialize", True):
            grads = [jt.zeros(shape, dtype) if g is None else g
                     for g, (shape, dtype) in zip(grads, self._jtport_outputs)]
        return super()._grad(*grads)

    def __call__(self, *args):
        if jt.flags.no_grad:
            return self.execute(*args)
        if not any(isinstance(v, jt.Var) and not v.is_stop_grad() for v in args):
            # no input needs a gradient: torch records no node, so nothing keeps the function
            # (and what ``execute`` saved on it) alive with its outputs; StyleGAN2-ADA's image
            # grid kept each convolution's per-sample weights this way, 56 MB a layer call
            with jt.no_grad():
                return self.execute(*args)
        taped_inputs, input_mask = [], []
        for v in args:
            if not isinstance(v, jt.Var):
                input_mask.append(-1)
            elif v.is_stop_grad():
                input_mask.append(-2)  # jt.Function's mark: a Var whose gradient must be None
            else:
                input_mask.append(len(taped_inputs))
                taped_inputs.append(v.tape())  # joins the inputs to the tape; execute never sees it
        result = self.execute(*args)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        non_diff = getattr(self, "_jtport_non_diff", ())
        taped_outputs, untaped, output_mask = [], [], []
        for i, v in enumerate(outputs):
            if not isinstance(v, jt.Var):
                output_mask.append(-1)
            elif id(v) in non_diff:
                outputs[i] = v.detach()
                output_mask.append(None)  # numbered after the taped outputs below (see _grad)
                untaped.append(outputs[i])
            else:
                # the tape stops the gradient at the Var it copies: a copy, so that a saved
                # tensor returned as an output keeps its own graph for grad
                outputs[i] = v.clone().tape()
                output_mask.append(len(taped_outputs))
                taped_outputs.append(outputs[i])
        later = iter(range(len(taped_outputs), len(taped_outputs) + len(untaped)))
        output_mask = [next(later) if m is None else m for m in output_mask]
        self._jtport_outputs = [(v.shape, v.dtype) for v in taped_outputs + untaped]
        self.input_mask, self.output_mask = input_mask, output_mask
        jt.tape_together(taped_inputs, taped_outputs, self._grad)
        if isinstance(result, (list, tuple)):
            return type(result)(outputs) if isinstance(result, tuple) else outputs
        return outputs[0]


def _install() -> None:
    jt.Var.grad = property(_get_grad, _set_grad, _del_grad, "torch's .grad: None until a backward reaches "
                           "this leaf, then its accumulated gradient (shims.autograd)")
    jt.Var.backward = _var_backward
    jt.Var.requires_grad = property(_get_requires_grad, _set_requires_grad, None,
                                    "torch's requires_grad (shims.autograd)")
    jt.Var.requires_grad_ = _requires_grad_
    jt.Var.start_grad = _start_grad
    jt.Var.is_leaf = property(_is_leaf, None, None, "torch's is_leaf (shims.autograd)")
    jt.Var.retain_grad = _retain_grad
    jt.Var.register_hook = register_hook
    jt.Var.assign = _keeping_requires_grad(_C_ASSIGN, "assign")
    jt.Var.update = _keeping_requires_grad(_C_UPDATE, "update")
    jt.Var.__deepcopy__ = _deepcopy
    for name, op in (("__iadd__", operator.add), ("__isub__", operator.sub), ("__imul__", operator.mul),
                     ("__itruediv__", operator.truediv), ("__ifloordiv__", operator.floordiv),
                     ("__imod__", operator.mod), ("__ipow__", operator.pow)):
        setattr(jt.Var, name, _inplace_binary(op))  # Jittor's C++ slots bypass assign
    jt.Module.__new__ = staticmethod(_module_new)
    jt.Module.requires_grad_ = _module_requires_grad_
    if not hasattr(jt.Module, "zero_grad"):
        jt.Module.zero_grad = _module_zero_grad


_FLOOR = _refcount_floor()
_install()
