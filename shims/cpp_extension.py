"""``torch.utils.cpp_extension``: building torch C++/CUDA extensions, which Jittor cannot load.

Converted code that builds a plugin (StyleGAN2-ADA's ``custom_ops.get_plugin``) gets the error a
failed build raises, so code written to survive a failed build (upstream's ``_init()`` returning
False, then ``impl='ref'``) takes its pure-tensor path without compiling anything."""
from __future__ import annotations


class ExtensionUnavailable(RuntimeError):
    """Raised instead of building a torch extension under Jittor."""


def load(name: str, sources=None, *args, **kwargs):
    """``torch.utils.cpp_extension.load``: never builds; raises :class:`ExtensionUnavailable`
    naming the extension and its sources."""
    srcs = ", ".join(str(s) for s in (sources or []))
    raise ExtensionUnavailable(
        f"jtport: torch extension {name!r} ({srcs or 'no sources'}) is not built under Jittor; "
        "code with a reference fallback (impl='ref') uses it, other code must port the kernel "
        "to jt.code")
