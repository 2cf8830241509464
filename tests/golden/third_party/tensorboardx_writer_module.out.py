import shims
from shims.tensorboard import SummaryWriter
# from torch.utils.tensorboard import SummaryWriter


def make_writer(run):
    return SummaryWriter(log_dir=f"runs/{run}", comment="_lr0.1")
