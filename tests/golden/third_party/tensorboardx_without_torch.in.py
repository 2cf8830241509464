"""A logger module that imports no torch: its tensorboardX writer still receives Vars."""
from tensorboardX import SummaryWriter


class Logger:
    def __init__(self, log_dir):
        self.writer = SummaryWriter(log_dir)

    def scalar_summary(self, tag, value, step):
        self.writer.add_scalar(tag, value, step)
