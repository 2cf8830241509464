"""Loss layers with torch's whole constructor signature, where Jittor's namesake takes fewer
arguments: ``CrossEntropyLoss`` (every ``reduction``, ``label_smoothing``), ``BCELoss``,
``BCEWithLogitsLoss`` and ``KLDivLoss`` (torch's positional order, ``reduction=`` and the
torch 0.4 ``size_average=``/``reduce=`` arguments)."""
from __future__ import annotations

from ..ops import functional as F
from .layers import _Loss

__all__ = ["CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


class CrossEntropyLoss(_Loss):
    """``torch.nn.CrossEntropyLoss(weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0)``."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def execute(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_Loss):
    """``torch.nn.BCELoss(weight=None, size_average=None, reduce=None, reduction='mean')``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def execute(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``torch.nn.BCEWithLogitsLoss(weight=None, size_average=None, reduce=None,
    reduction='mean', pos_weight=None)``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def execute(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    """``torch.nn.KLDivLoss(size_average=None, reduce=None, reduction='mean', log_target=False)``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def execute(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
