"""``torch.jit``, ``torch.fx``, ``torch.compile`` and ``torch.compiler`` under Jittor: compilers
and tracers of torch programs, which a port runs eagerly.

Their decorators and markers change how torch compiles a function, never what it computes, so
each is the identity here (``@torch.jit.ignore``, ``@torch.fx.wrap``, ``@torch.jit.script``,
``torch.compile(model)``, ``@torch.compiler.disable``); the queries answer as eager torch does
(``torch.jit.is_scripting()`` is False), and ``torch.jit.Final[int]`` is ``typing.Final[int]``.
"""
from __future__ import annotations

import typing
from typing import Any

__all__ = ["identity_decorator", "script", "compile", "annotate", "is_scripting", "is_tracing",
           "is_compiling", "Final"]

Final = typing.Final


def identity_decorator(fn: Any = None, *args: Any, **kwargs: Any) -> Any:
    """A decorator that changes nothing, used bare (``@torch.jit.ignore``) or with arguments
    (``@torch.jit.ignore(drop=True)``, ``torch.compile(model, mode="max-autotune")``,
    ``@torch.compile(dynamic=True)``): returns ``fn`` itself, or a decorator returning its
    argument when called without a function."""
    if callable(fn):
        return fn
    return lambda f: f


script = identity_decorator
compile = identity_decorator  # noqa: A001 (torch.compile's name)


def annotate(the_type: Any, value: Any) -> Any:
    """``torch.jit.annotate(List[int], [])``: the value (the type is for TorchScript)."""
    return value


def is_scripting() -> bool:
    """``torch.jit.is_scripting()``: False (the port runs eagerly, as eager torch does)."""
    return False


def is_tracing() -> bool:
    """``torch.jit.is_tracing()``: False (nothing traces the port)."""
    return False


def is_compiling() -> bool:
    """``torch.compiler.is_compiling()``: False (nothing compiles the port)."""
    return False
