import torch
from tensorboardX.writer import SummaryWriter
# from torch.utils.tensorboard import SummaryWriter


def make_writer(run):
    return SummaryWriter(logdir=f"runs/{run}", comment="_lr0.1")
