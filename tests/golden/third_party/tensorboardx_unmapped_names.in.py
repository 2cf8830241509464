import torch
import tensorboardX
from tensorboardX import GlobalSummaryWriter, SummaryWriter
from tensorboardX.utils import figure_to_image

shared = GlobalSummaryWriter()
legacy = tensorboardX.FileWriter("runs/legacy")
w = SummaryWriter("runs/x")
quiet = tensorboardX.SummaryWriter("runs/q", write_to_disk=False)
img = figure_to_image
x = torch.ones(2)
