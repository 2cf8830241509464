"""Convolution rounded as torch rounds it, transposed convolution correct for any ``groups``,
and torch's ``weight_norm``.

Jittor 1.3.11's float32 CPU convolution asks oneDNN 2.2 for an inference primitive with free
memory formats; on AVX-512 CPUs oneDNN then runs its channels-last brgemm kernel, which sums all
kh*kw*C products of an output in one float32 chain: 1.3x torch's rounding error on 32 channels,
2.5x on 128, 4.3x on 512 (3x3).  torch asks for a training primitive and gets the blocked direct
kernel, one partial sum per 16 input channels.  :func:`conv2d` and :class:`Conv2d` run the forward
pass of a convolution with more than 16 input channels per group through the primitive torch
asks for (``csrc/jtport_conv_op.cc``, a Jittor custom op compiled on first use with the flags of
Jittor's own oneDNN ops), bias included as torch does, so the result is torch's to the bit; the
backward pass is Jittor's conv2d gradient written out op for op (fused, oneDNN's backward
kernels: torch's input gradient to the bit, its weight gradient on most shapes).  With at most
16 channels per group (one block: both kernels sum in the same order), without oneDNN
(``use_mkl=0``), on CUDA and for other dtypes Jittor's own convolution runs.

Jittor 1.3.11's ``conv_transpose2d(groups=G)`` is wrong whenever in/G != out/G (StyleGAN2's
up-sampling modulated conv uses groups=batch); the ungrouped op is right, so each group is
computed separately and the results concatenated.
"""
from __future__ import annotations

import math
import os
import warnings
from typing import Optional

import jittor as jt
import jittor_utils
from jittor import compile_extern, compiler
from jittor import nn as jnn

from ..autograd import Function
from ..ops._common import float_sum
from .module import Module
from .pooling import _as_4d, _pair

__all__ = ["conv2d", "Conv2d", "conv_transpose2d", "ConvTranspose2d", "weight_norm", "remove_weight_norm"]

_CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")
_OP = None  # the compiled jtport_conv op; False once it is known to be unavailable


def _conv_op():
    """The ``jtport_conv`` op, compiled on first use; None where Jittor runs without oneDNN."""
    global _OP
    if _OP is None:
        _OP = False
        if compile_extern.mkl_ops is None:
            return None
        # the folder and flags jittor/compile_extern.py:setup_mkl builds its oneDNN ops with
        root = os.path.join(jittor_utils.home(), ".cache", "jittor", "mkl")
        homes = [os.path.join(root, n) for n in os.listdir(root)
                 if n.startswith("dnnl") and os.path.isdir(os.path.join(root, n))]
        if not homes:
            return None
        flags = f' -I"{homes[0]}/include" -L"{homes[0]}/lib" -lmkldnn '
        try:
            ops = compiler.compile_custom_ops([os.path.join(_CSRC, "jtport_conv_op.h"),
                                               os.path.join(_CSRC, "jtport_conv_op.cc")], extra_flags=flags)
            _OP = ops.jtport_conv
        except Exception as e:  # a compiler or oneDNN Jittor cannot build against: Jittor's conv
            warnings.warn(f"shims.nn.conv2d: could not build its oneDNN op ({type(e).__name__}: {e}); "
                          "float32 convolutions use Jittor's own, which rounds up to ~4x worse", stacklevel=2)
    return _OP or None


class _OneDNNConv2d(Function):
    """The forward pass on ``jtport_conv``; the gradients are those of Jittor's ``conv2d``."""

    def __init__(self, stride, padding, dilation, groups):
        self.args = stride, padding, dilation, groups

    def execute(self, x, w, b=None):
        self.saved = x, w, b
        stride, padding, dilation, groups = self.args
        return _conv_op()([x, w] if b is None else [x, w, b], *stride, *padding, *dilation, groups)

    def grad(self, dy):
        x, w, b = self.saved
        # the gradient Jittor's own conv2d (jittor/nn.py) is differentiated into, op for op, so
        # that fused it lowers to the same oneDNN backward-data and backward-weights kernels
        stride, padding, dilation, groups = self.args
        n, c = x.shape[0], x.shape[1]
        o, cg, kh, kw = w.shape
        oh, ow = dy.shape[2], dy.shape[3]
        hi = f"i{{}}*{stride[0]}-{padding[0]}+i{{}}*{dilation[0]}"
        wi = f"i{{}}*{stride[1]}-{padding[1]}+i{{}}*{dilation[1]}"
        if groups == 1:
            shape = [n, o, c, oh, ow, kh, kw]
            xi = ["i0", "i2", hi.format(3, 5), wi.format(4, 6)]
            dyy = dy.broadcast(shape, [2, 5, 6])
            gx = None if x.is_stop_grad() else (dyy * w.broadcast(shape, [0, 3, 4])).reindex_reduce("add", x.shape, xi)
            gw = None if w.is_stop_grad() else (dyy * x.reindex(shape, xi)).sum([0, 3, 4])
        else:
            og = o // groups
            shape = [n, groups, og, cg, oh, ow, kh, kw]
            xi = ["i0", f"i1*{cg}+i3", hi.format(4, 6), wi.format(5, 7)]
            wi_ = [f"i1*{og}+i2", "i3", "i6", "i7"]
            dyy = dy.reindex(shape, ["i0", f"i1*{og}+i2", "i4", "i5"])
            gx = None if x.is_stop_grad() else (dyy * w.reindex(shape, wi_)).reindex_reduce("add", x.shape, xi)
            gw = None if w.is_stop_grad() else (dyy * x.reindex(shape, xi)).reindex_reduce("add", w.shape, wi_)
        return gx, gw, (None if b is None else float_sum(dy, (0, 2, 3)))


def conv2d(input: jt.Var, weight: jt.Var, bias: Optional[jt.Var] = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> jt.Var:
    """``torch.nn.functional.conv2d``: float32 on the CPU computed as torch computes it (see the
    module docstring); ``padding`` may be ``'valid'`` or ``'same'``; a 3-D input is one image."""
    x, unbatched = _as_4d(input, "conv2d")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    kernel = (int(weight.shape[2]), int(weight.shape[3]))
    if isinstance(padding, str):
        x, padding = _string_padding(x, padding, kernel, stride, dilation)
    padding = _pair(padding, "padding")
    # <= 16 input channels per group: one block, summed in the same order by both kernels (torch's
    # bits already); Jittor's conv also keeps depthwise gradients off a oneDNN descriptor failure
    # ("dilated convolution forward") its fused backward hit inside StyleGAN2-ADA's upfirdn2d
    if (x.dtype == jt.float32 and weight.dtype == jt.float32 and (bias is None or bias.dtype == jt.float32)
            and int(weight.shape[1]) > 16 and not jt.flags.use_cuda and _conv_op() is not None):
        y = _OneDNNConv2d(stride, padding, dilation, groups)(x, weight, bias)
    else:
        # the bias added here, not by jnn.conv2d's explicit ``bias.broadcast``: the operator
        # sums its gradient in float64 (shims.ops.broadcast_grad); the same single addition
        y = jnn.conv2d(x, weight, None, stride, padding, dilation, groups)
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1)
    return y.squeeze(0) if unbatched else y


def _string_padding(x: jt.Var, padding: str, kernel, stride, dilation):
    """torch's ``padding='valid'``/``'same'``: the input (padded where 'same' needs an odd
    total) and the symmetric padding left."""
    if padding == "valid":
        return x, 0
    if padding != "same":
        raise ValueError(f"conv2d: padding must be 'valid', 'same' or ints, got {padding!r}")
    if stride != (1, 1):
        raise ValueError("conv2d: padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    left = [t // 2 for t in total]
    extra = [t - 2 * p for t, p in zip(total, left)]  # torch pads the odd one at the end
    if any(extra):
        x = jnn.pad(x, [0, extra[1], 0, extra[0]])
    return x, tuple(left)


class Conv2d(jnn.Conv2d):
    """``torch.nn.Conv2d`` (Jittor's layer and parameters) computed by :func:`conv2d`; torch's
    ``padding='same'/'valid'`` and ``padding_mode`` (the input padded first, as torch does)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"Conv2d: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                             f"got {padding_mode!r}")
        kernel_size, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
        text = isinstance(padding, str)
        if text and padding not in ("same", "valid"):
            raise ValueError(f"Conv2d: padding must be 'valid', 'same' or ints, got {padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, 0 if text else padding, dilation,
                         groups, bias)
        if text:
            self.padding = padding
            totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(dilation, kernel_size)]
            pads = [(t // 2, t - t // 2) for t in totals]
        else:
            pads = [(p, p) for p in self.padding]
        # torch's _reversed_padding_repeated_twice: (left, right, top, bottom)
        self.reversed_padding = (pads[1][0], pads[1][1], pads[0][0], pads[0][1])
        self.padding_mode = padding_mode

    def execute(self, x: jt.Var) -> jt.Var:
        if self.padding_mode != "zeros":
            x = jnn.pad(x, list(self.reversed_padding), self.padding_mode)
            return conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        if jt.flags.use_cuda and not isinstance(self.padding, str):
            return super().execute(x)  # on CUDA Jittor's layer as it was (its depthwise kernel too)
        return conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


def conv_transpose2d(input: jt.Var, weight: jt.Var, bias: Optional[jt.Var] = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> jt.Var:
    """``torch.nn.functional.conv_transpose2d`` for any ``groups``.

    ``weight`` has torch's layout (in_channels, out_channels // groups, kH, kW); every group is
    an ungrouped Jittor transposed conv, concatenated along channels.
    """
    if input.ndim != 4:
        raise ValueError(f"conv_transpose2d: expected 4-D input, got shape {tuple(input.shape)}")
    C = input.shape[1]
    if weight.shape[0] != C or C % groups:
        raise ValueError(f"conv_transpose2d: input has {C} channels, weight {tuple(weight.shape)}, "
                         f"groups={groups}: weight.shape[0] must equal the channels and divide by groups")
    args = dict(stride=_pair(stride, "stride"), padding=_pair(padding, "padding"),
                output_padding=_pair(output_padding, "output_padding"),
                dilation=_pair(dilation, "dilation"))
    if groups == 1:
        out = jnn.conv_transpose2d(input, weight, None, **args)
    else:
        cin = C // groups
        outs = [jnn.conv_transpose2d(input[:, g * cin:(g + 1) * cin], weight[g * cin:(g + 1) * cin],
                                     None, **args) for g in range(groups)]
        out = jt.concat(outs, dim=1)
    if bias is not None:
        out = out + bias.reshape([1, -1, 1, 1])
    return out


class ConvTranspose2d(Module):
    """``torch.nn.ConvTranspose2d`` (torch's init, weight layout and keys; any ``groups``;
    ``output_size=`` in the call like torch)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"ConvTranspose2d: in_channels={in_channels} and out_channels="
                             f"{out_channels} must be divisible by groups={groups}")
        if padding_mode != "zeros":
            raise ValueError("ConvTranspose2d: only padding_mode='zeros' is supported (as in torch)")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride, self.padding = _pair(stride, "stride"), _pair(padding, "padding")
        self.output_padding, self.dilation = _pair(output_padding, "output_padding"), _pair(dilation, "dilation")
        shape = (in_channels, out_channels // groups) + self.kernel_size
        # torch: kaiming_uniform_(a=sqrt(5)) with fan_in = weight.size(1) * kH * kW
        fan_in = shape[1] * shape[2] * shape[3]
        bound = 1.0 / math.sqrt(fan_in)
        self.weight = jt.init.uniform(shape, "float32", -bound, bound)
        self.bias = jt.init.uniform((out_channels,), "float32", -bound, bound) if bias else None

    def execute(self, x: jt.Var, output_size=None) -> jt.Var:
        op = self.output_padding
        if output_size is not None:
            size = list(output_size)[-2:]
            op = []
            for d in range(2):
                base = ((x.shape[2 + d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
                extra = size[d] - base
                if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                    raise ValueError(f"ConvTranspose2d: requested output_size {tuple(output_size)} "
                                     f"is not reachable from input {tuple(x.shape)}")
                op.append(extra)
        return conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, tuple(op),
                                self.groups, self.dilation)


def _norm_except_dim(v: jt.Var, dim: Optional[int]) -> jt.Var:
    """torch's ``norm_except_dim(v, 2, dim)``; ``dim=None`` or -1: the norm of the whole tensor."""
    if dim is None or dim == -1:
        return jt.sqrt((v * v).sum()).reshape([1])
    dim = dim % v.ndim
    dims = tuple(i for i in range(v.ndim) if i != dim)
    return jt.sqrt((v * v).sum(dims=dims, keepdims=True))


def _leaf(v: jt.Var) -> jt.Var:
    """A new trainable leaf Var holding ``v``'s current value."""
    return jt.array(v.numpy())


class _WeightNormCall:
    """Replaces a module's ``execute``: recompute ``name`` from g and v, then run the layer."""

    def __init__(self, module, name: str, dim: Optional[int], inner):
        self.module, self.name, self.dim, self.inner = module, name, dim, inner

    def compute(self) -> jt.Var:
        g = getattr(self.module, self.name + "_g")
        v = getattr(self.module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, *args, **kw):
        object.__setattr__(self.module, self.name, self.compute())
        try:
            return self.inner(*args, **kw)
        finally:
            # the recomputed weight is not a parameter and not in state_dict (as in torch)
            object.__delattr__(self.module, self.name)


def weight_norm(module, name: str = "weight", dim: Optional[int] = 0):
    """``torch.nn.utils.weight_norm``: replace parameter ``name`` by ``name_g`` (its norm over
    every dim but ``dim``) and ``name_v`` (its direction), recomputed before each call;
    ``state_dict`` keys ``<name>_g``/``<name>_v`` appear after the others, like torch."""
    if isinstance(module.__dict__.get("execute"), _WeightNormCall):
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = module.__dict__.get(name)
    if not isinstance(weight, jt.Var):
        raise AttributeError(f"weight_norm: {type(module).__name__} has no parameter '{name}'")
    object.__delattr__(module, name)
    object.__setattr__(module, name + "_g", _leaf(_norm_except_dim(weight, dim)))
    object.__setattr__(module, name + "_v", _leaf(weight))
    inner = module.execute
    call = _WeightNormCall(module, name, dim, inner)
    object.__setattr__(module, "execute", call)
    module.__class__ = _with_computed_attr(type(module), name, call)
    return module


def _with_computed_attr(cls: type, name: str, call: _WeightNormCall) -> type:
    """``cls`` with ``name`` readable between calls, as torch's weight_norm leaves it (TCN's
    ``self.conv1.weight.normal_(0, 0.01)`` after ``weight_norm(conv1)``): the value set during a
    call, else computed from g and v. A class attribute, so ``state_dict`` never holds it."""

    def get(module):
        value = module.__dict__.get(name)
        return value if value is not None else call.compute()

    def put(module, value):
        module.__dict__[name] = value

    def drop(module):
        module.__dict__.pop(name, None)

    return type(cls.__name__, (cls,), {name: property(get, put, drop), "__module__": cls.__module__,
                                       "__qualname__": cls.__qualname__, "_weight_norm_base": cls})


def remove_weight_norm(module, name: str = "weight"):
    """``torch.nn.utils.remove_weight_norm``: fold g and v back into a plain parameter."""
    call = module.__dict__.get("execute")
    if not isinstance(call, _WeightNormCall) or call.name != name:
        raise ValueError(f"weight_norm of '{name}' not found in {type(module).__name__}")
    weight = call.compute()
    object.__delattr__(module, name + "_g")
    object.__delattr__(module, name + "_v")
    object.__delattr__(module, "execute")
    module.__class__ = type(module).__dict__.get("_weight_norm_base", type(module))
    object.__setattr__(module, name, _leaf(weight))
    return module
