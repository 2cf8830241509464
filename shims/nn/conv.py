"""Transposed convolution correct for any ``groups``, and torch's ``weight_norm``.

Jittor 1.3.11's ``conv_transpose2d(groups=G)`` is wrong whenever in/G != out/G (StyleGAN2's
up-sampling modulated conv uses groups=batch); the ungrouped op is right, so each group is
computed separately and the results concatenated.
"""
from __future__ import annotations

import math
from typing import Optional


import jittor as jt
from jittor import nn as jnn

from .module import Module
from .pooling import _pair

__all__ = ["conv_transpose2d", "ConvTranspose2d", "weight_norm", "remove_weight_norm"]


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
    inner = getattr(module, "execute")
    object.__setattr__(module, "execute", _WeightNormCall(module, name, dim, inner))
    return module


def remove_weight_norm(module, name: str = "weight"):
    """``torch.nn.utils.remove_weight_norm``: fold g and v back into a plain parameter."""
    call = module.__dict__.get("execute")
    if not isinstance(call, _WeightNormCall) or call.name != name:
        raise ValueError(f"weight_norm of '{name}' not found in {type(module).__name__}")
    weight = call.compute()
    object.__delattr__(module, name + "_g")
    object.__delattr__(module, name + "_v")
    object.__delattr__(module, "execute")
    object.__setattr__(module, name, _leaf(weight))
    return module
