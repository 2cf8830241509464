import shims
from shims.tensorboard import SummaryWriter
from shims.tensorboard import SummaryWriter as W


def writers(loss: shims.Tensor):
    a = SummaryWriter(log_dir="runs/a")
    b = shims.tensorboard.SummaryWriter("runs/b", flush_secs=10)
    c = shims.tensorboard.SummaryWriter(log_dir="runs/c")
    d = W()
    a.add_scalar("loss", loss, 1)
    return a, b, c, d
