"""A small torch model saved whole (``torch.save(model)``) by the checkpoint parity tests; the
Jittor side converts this file and rebuilds the model from the converted class."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyNet(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, channels), nn.BatchNorm1d(channels))
        self.head = nn.Linear(channels, 2)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        return self.head(F.relu(self.body(x))) * self.scale
