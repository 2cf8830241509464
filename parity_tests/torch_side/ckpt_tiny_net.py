"""A small torch model saved whole (``torch.save(model)``) by the checkpoint parity tests; the
Jittor side converts this file and rebuilds the model from the converted class."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyNet(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.head = nn.Linear(channels, 2)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.head(h.mean(dim=(2, 3))) * self.scale
