"""The interface every conversion rule implements."""
from __future__ import annotations

from typing import FrozenSet, Optional

import libcst as cst

from ..context import FileContext


class Rule(cst.CSTTransformer):
    """A libcst transformer that rewrites one torch idiom.

    Subclasses set ``name`` (its golden-test folder: ``tests/golden/<name>/``), may override
    :meth:`applies` (a cheap pre-check that skips the tree walk), and use ``self.ctx``
    (:class:`porter.convert.context.FileContext`) to resolve torch names, spell Jittor targets and
    record what they converted, left unsupported, or want the user to check.
    """

    name = "rule"

    #: Attribute/plain names this rule reacts to inside simple statements that hold no torch
    #: use (e.g. ``{"backward", "zero_grad", "step"}``).  The driver skips simple statements
    #: with neither a torch use nor any rule's identifier.  None (the default) means "show me
    #: every statement" and turns that pruning off.
    identifiers: Optional[FrozenSet[str]] = None

    def __init__(self, ctx: FileContext):
        super().__init__()
        self.ctx = ctx

    @classmethod
    def applies(cls, ctx: FileContext) -> bool:
        """Whether this rule can change anything in the file (default: always run)."""
        return True
