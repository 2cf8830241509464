import shims
from shims.tensorboard import SummaryWriter


class Logger(SummaryWriter):
    def __init__(self, logdir):
        super().__init__(logdir)

    def log_training(self, loss, iteration):
        self.add_scalar("train/loss", loss, iteration)
