import shims


class Net(shims.nn.Module):
    def calc_style_loss(self, input, target):
        assert (input.size() == target.size())
        assert (target.requires_grad is False)
        return shims.mean((input - target) ** 2)

    def check(self, x):
        assert not x.requires_grad, "inputs must be constants"
        return x.requires_grad
