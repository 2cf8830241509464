#!/usr/bin/env python
"""Every common way of importing torch."""
from __future__ import annotations

import os  # not torch
import torch as th
import torch.nn as nn
from torch.nn import functional as F
from torch import optim
from torch.utils.data import DataLoader
import torchvision.transforms as T


def build():
    net = nn.Conv2d(3, 8, 3)
    opt = optim.Adam(net.parameters(), lr=1e-3)
    loader = DataLoader([1, 2, 3], batch_size=2)
    tf = T.ToTensor()
    return th.cat([th.mm(a, b) for a, b in loader], 0), F.relu(net), opt, tf, os.sep
