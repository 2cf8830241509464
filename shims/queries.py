"""What code asks torch about the machine and the compiler, answered for the port: CUDA
capability queries (``torch.cuda.is_bf16_supported``; ``torch.compile`` is :mod:`shims.jit`'s),
``torch.Size`` and the device-type flags of a tensor
(``x.is_xpu``, ``x.is_mps``, ...: a Jittor Var lives on the CPU or on CUDA only)."""
from __future__ import annotations

import jittor as jt

__all__ = ["is_bf16_supported", "Size"]

#: torch's Tensor flags for devices and layouts a Jittor Var never has
NEVER_FLAGS = ("is_xpu", "is_mps", "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mtia", "is_vulkan", "is_xla",
               "is_nested", "is_quantized", "is_sparse_csr")


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """``torch.cuda.is_bf16_supported``: False, the port computes float32 where torch's
    autocast would use bfloat16 (and on a machine without CUDA torch says False too)."""
    return False


class Size(tuple):
    """``torch.Size``: a tuple of ints with ``numel()``."""

    def numel(self) -> int:
        """The product of the sizes (1 for an empty size)."""
        n = 1
        for s in self:
            n *= int(s)
        return n


def _install_never_flags() -> None:
    for name in NEVER_FLAGS:
        if not hasattr(jt.Var, name):
            setattr(jt.Var, name, property(lambda self: False, doc=f"torch's ``Tensor.{name}``: never, in Jittor"))


_install_never_flags()
