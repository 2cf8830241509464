import shims


class RowMax(shims.autograd.Function):
    """Row maxima and where they are: the positions leave marked non-differentiable."""

    def execute(ctx, x):
        ctx.set_materialize_grads(False)
        values, where = x.max(dim=1)
        ctx.mark_non_differentiable(where)
        ctx.saved_tensors = (where,)
        ctx.hit = x == values[:, None]
        return values, where

    def grad(ctx, grad_values, grad_where):
        where, = ctx.saved_tensors
        return grad_values[:, None] * ctx.hit


class AddOne(shims.autograd.Function):
    def execute(ctx, x):
        ctx.mark_dirty(x)  # jtport: JT103 torch.autograd.function.FunctionCtx.mark_dirty: no Jittor equivalent
        return x.add_(1)

    def grad(ctx, g):
        return g
