import shims


class Gen(shims.nn.Module):
    def execute(self, x):
        loss = self.net(x).mean()
        shims.optim.backward(loss)  # HiSD: backward inside forward under DataParallel
        return loss


def accumulate(loss, weight):
    shims.optim.backward(loss * weight, retain_graph=True)
