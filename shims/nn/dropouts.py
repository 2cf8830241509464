"""Dropout layers and functions with torch's defaults and mask shapes.

Jittor 1.3.11's ``nn.Dropout``/``Dropout2d`` are built with ``is_train=False`` and
``nn.dropout(x, p)`` defaults to ``is_train=False``: a torch model, which trains in training
mode from construction, runs without dropout until ``train()`` is called, and ``F.dropout(x,
0.5)`` (torch: ``training=True``) does nothing.  Jittor's ``Dropout2d`` raises on 2-D input and
reads a 3-D input as one unbatched ``(C, H, W)`` map, where torch drops features of ``(N, C,
L)``.  Here:

* modules start in training mode (torch's default) and follow ``train()``/``eval()``;
* functions default to ``training=True``;
* the feature dropouts zero whole ``input[n, c]`` slices, with torch's reading of each input
  rank (``dropout2d`` on 3-D input is 1-D channel dropout over ``(N, C, L)``, on 2-D input
  element-wise, with torch's warnings; ``dropout1d``/``dropout3d`` accept unbatched input);
* ``alpha_dropout``/``feature_alpha_dropout`` keep SELU's mean and variance (torch's ``a``, ``b``).

Masks are drawn from Jittor's generator (``jt.set_seed``): the same distribution as torch's,
not the same draws.
"""
from __future__ import annotations

# the functions live with the ops (which use them too); ``shims.nn`` exports them as torch does
from ..ops.dropout import (_check_p, alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,  # noqa: F401
                           feature_alpha_dropout)
from .module import Module

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]

class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p = _check_p(p)
        self.inplace = inplace
        self.is_train = True  # torch modules start in training mode

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``torch.nn.Dropout`` (training mode from construction, as torch)."""

    def execute(self, input):
        return dropout(input, self.p, self.is_training())


class Dropout1d(_DropoutNd):
    """``torch.nn.Dropout1d``."""

    def execute(self, input):
        return dropout1d(input, self.p, self.is_training())


class Dropout2d(_DropoutNd):
    """``torch.nn.Dropout2d`` (2-D and 3-D input read as torch reads them)."""

    def execute(self, input):
        return dropout2d(input, self.p, self.is_training())


class Dropout3d(_DropoutNd):
    """``torch.nn.Dropout3d``."""

    def execute(self, input):
        return dropout3d(input, self.p, self.is_training())


class AlphaDropout(_DropoutNd):
    """``torch.nn.AlphaDropout``."""

    def execute(self, input):
        return alpha_dropout(input, self.p, self.is_training())


class FeatureAlphaDropout(_DropoutNd):
    """``torch.nn.FeatureAlphaDropout``."""

    def execute(self, input):
        return feature_alpha_dropout(input, self.p, self.is_training())
