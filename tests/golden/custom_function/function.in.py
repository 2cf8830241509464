import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class BiasAct(torch.autograd.Function):
    """y = leaky(x + b)."""

    @staticmethod
    def forward(ctx, x, b, alpha=0.2):
        y = x + b
        ctx.save_for_backward(y)
        ctx.alpha = alpha
        return y * (y >= 0) + y * alpha * (y < 0)

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensors
        dx = dy * (y >= 0) + dy * ctx.alpha * (y < 0)
        db = dx.sum(0) if ctx.needs_input_grad[1] else None
        return dx, db, None


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_variables
        ctx.mark_non_differentiable(x)
        return 2 * x * g


def apply(x, b):
    return BiasAct.apply(x, b, 0.1) + Square.apply(x)
