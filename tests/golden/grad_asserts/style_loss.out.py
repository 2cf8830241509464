import shims


class Net(shims.nn.Module):
    def calc_style_loss(self, input, target):
        assert (input.size() == target.size())
        pass  # jtport: JT103 torch.Tensor.requires_grad: assert on requires_grad removed: Jittor marks every computed Var requires_grad=True, so the check cannot hold
        return shims.mean((input - target) ** 2)

    def check(self, x):
        pass  # jtport: JT103 torch.Tensor.requires_grad: assert on requires_grad removed: Jittor marks every computed Var requires_grad=True, so the check cannot hold
        return x.requires_grad
