import torch


class RowMax(torch.autograd.Function):
    """Row maxima and where they are: the positions leave marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        values, where = x.max(dim=1)
        ctx.mark_non_differentiable(where)
        ctx.save_for_backward(where)
        ctx.hit = x == values[:, None]
        return values, where

    @staticmethod
    def backward(ctx, grad_values, grad_where):
        where, = ctx.saved_tensors
        return grad_values[:, None] * ctx.hit


class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.add_(1)

    @staticmethod
    def backward(ctx, g):
        return g
