import shims
import jittor as jt

try:
    from shims.tensorboard import SummaryWriter
except ImportError:
    from shims.tensorboard import SummaryWriter

writer = SummaryWriter()
writer.add_scalar("x", jt.zeros(()), 0)
