import torch

try:
    from torch.utils.tensorboard import SummaryWriter
except ImportError:
    from tensorboardX import SummaryWriter

writer = SummaryWriter()
writer.add_scalar("x", torch.zeros(()), 0)
