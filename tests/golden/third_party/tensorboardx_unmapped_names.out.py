import shims
import jittor as jt
import tensorboardX
from tensorboardX import GlobalSummaryWriter
from shims.tensorboard import SummaryWriter
from tensorboardX.utils import figure_to_image

shared = GlobalSummaryWriter()
legacy = tensorboardX.FileWriter("runs/legacy")
w = SummaryWriter("runs/x")
quiet = tensorboardX.SummaryWriter("runs/q", write_to_disk=False)  # jtport: JT002 tensorboardX.SummaryWriter: argument write_to_disk=False: write_to_disk=False (a writer that writes nothing) has no torch twin
img = figure_to_image
x = jt.ones(2)
