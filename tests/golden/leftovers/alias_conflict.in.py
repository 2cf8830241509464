import torch
import torch.nn as nn
x = nn.NoSuchLayer(3)
y = nn.Conv2d(1, 1, 1)
