import torch
import tensorboardX
import tensorboardX as tbx
from tensorboardX import SummaryWriter
from tensorboardX import SummaryWriter as W


def writers(loss: torch.Tensor):
    a = SummaryWriter(log_dir="runs/a")
    b = tbx.SummaryWriter("runs/b", flush_secs=10)
    c = tensorboardX.SummaryWriter(logdir="runs/c")
    d = W()
    a.add_scalar("loss", loss, 1)
    return a, b, c, d
