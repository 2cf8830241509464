"""``torch.optim.Muon`` on the :class:`shims.optim.Optimizer` base: torch's momentum, its
Newton-Schulz orthogonalisation in bfloat16, its learning-rate adjustments, defaults, option
checks and ``state_dict`` layout (``momentum_buffer`` only: torch's Muon keeps no ``step``).

torch runs the Newton-Schulz iterations on a bfloat16 copy of the update: every matmul and
``addmm`` accumulates in float32 and rounds its result to bfloat16 (round to nearest even),
and so do the norm and the division.  Jittor's own bfloat16 cast truncates (measured on
1.3.11's CPU path), so the iterations here run in float32 and :func:`bf16_round` rounds each
result to bfloat16 as torch does (a bit-exact kernel, CPU and CUDA).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import jittor as jt

from ..ops.pointwise import lerp
from .torchlike import _f32, _scalar, _Torchlike

__all__ = ["Muon"]

#: torch's defaults (Keller Jordan's constants)
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

_BF16_HEADER = "#include <cstring>\n#include <cstdint>\n"
_BF16_CPU = """
for (long long i = 0; i < in0_shape0; i++) {
    float f = @in0(i);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x00400000u;
    else u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    std::memcpy(&f, &u, 4);
    @out(i) = f;
}
"""
_BF16_CUDA = """
__global__ static void jtport_bf16_round(@ARGS_DEF) {
    @PRECALC
    long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x;
    long long stride = (long long)blockDim.x * gridDim.x;
    for (; i < in0_shape0; i += stride) {
        unsigned int u = __float_as_uint(@in0(i));
        if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x00400000u;
        else u += 0x7fffu + ((u >> 16) & 1u);
        @out(i) = __uint_as_float(u & 0xffff0000u);
    }
}
jtport_bf16_round<<<(in0_shape0 - 1) / 1024 + 1, 1024>>>(@ARGS);
"""


def bf16_round(x: jt.Var) -> jt.Var:
    """``x.to(torch.bfloat16)`` as float32 values: each element rounded to bfloat16's 8-bit
    significand, to nearest with ties to even (NaN stays NaN, overflow gives inf)."""
    x = x.float32()
    if x.numel() == 0:
        return x
    flat = x.reshape(-1)
    out = jt.code(flat.shape, "float32", [flat], cpu_header=_BF16_HEADER, cpu_src=_BF16_CPU, cuda_src=_BF16_CUDA)
    return out.reshape(x.shape)


def _zeropower_via_newtonschulz(grad: jt.Var, ns_coefficients: Sequence[float], ns_steps: int,
                                eps: float) -> jt.Var:
    """torch's quintic Newton-Schulz iteration (``torch.optim._muon``), bfloat16 result as float32."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = bf16_round(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.transpose()
    # spectral norm at most 1: x / max(||x||_F, eps), each op rounded to bfloat16
    norm = bf16_round(jt.sqrt((x * x).sum()))
    norm = bf16_round(jt.clamp(norm, min_v=_f32(eps)))
    x = bf16_round(x / norm)
    for _ in range(ns_steps):
        gram = bf16_round(jt.matmul(x, x.transpose()))
        gram_update = bf16_round(b * gram + c * jt.matmul(gram, gram))  # addmm(gram, gram, gram, beta=b, alpha=c)
        x = bf16_round(a * x + jt.matmul(gram_update, x))  # addmm(x, gram_update, x, beta=a)
    if tall:
        x = x.transpose()
    return x


def _adjust_lr(lr: float, adjust_lr_fn: Optional[str], param_shape) -> float:
    """torch's learning-rate adjustment for a ``(A, B)`` matrix."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    elif adjust_lr_fn == "spectral_unclamped":
        adjusted_ratio = math.sqrt(A / B)
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(_Torchlike):
    """``torch.optim.Muon(params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
    ns_coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None)``.

    For 2-D parameters only (torch raises ValueError for others): ``buf.lerp_(g, 1-momentum)``,
    the Nesterov blend ``g.lerp(buf, momentum)``, Newton-Schulz orthogonalisation in bfloat16,
    decoupled weight decay ``p *= 1 - lr*wd`` and ``p -= adjusted_lr * update`` with
    ``adjust_lr_fn`` None/'original' (``sqrt(max(1, A/B))``), 'match_rms_adamw'
    (``0.2*sqrt(max(A, B))``) or 'spectral_unclamped' (``sqrt(A/B)``)."""

    _counts_steps = False  # torch's Muon state holds the momentum buffer only

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: Optional[str] = None):
        if isinstance(lr, jt.Var) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw", "spectral_unclamped"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"torch.Size({list(p.shape)})")

    def _update(self, p, g, state, group):
        if str(p.dtype).startswith("complex"):
            raise RuntimeError("Muon does not support complex parameters")
        if g.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        lr, wd, momentum = _scalar(group["lr"]), group["weight_decay"], group["momentum"]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = jt.zeros_like(g).stop_grad()
        buf = state["momentum_buffer"]
        buf.update(lerp(buf, g, 1 - momentum))
        update = lerp(g, buf, momentum) if group["nesterov"] else buf
        update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
        p.update(p * (1 - lr * wd))
        p.update(p + (-adjusted_lr) * update)
