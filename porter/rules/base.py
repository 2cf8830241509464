"""The interface every conversion rule implements."""
from __future__ import annotations

import libcst as cst

from ..context import FileContext


class Rule(cst.CSTTransformer):
    """A libcst transformer that rewrites one torch idiom.

    Subclasses set ``name`` (its golden-test folder: ``tests/golden/<name>/``), may override
    :meth:`applies` (a cheap pre-check that skips the tree walk), and use ``self.ctx``
    (:class:`porter.context.FileContext`) to resolve torch names, spell Jittor targets and
    record what they converted, left unsupported, or want the user to check.
    """

    name = "rule"

    def __init__(self, ctx: FileContext):
        super().__init__()
        self.ctx = ctx

    @classmethod
    def applies(cls, ctx: FileContext) -> bool:
        """Whether this rule can change anything in the file (default: always run)."""
        return True
