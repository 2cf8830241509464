#!/usr/bin/env python
"""Every common way of importing torch."""
from __future__ import annotations

import os  # not torch
import shims
import jittor as jt
from jittor import nn
from jittor import nn as F
from shims.data import DataLoader
from shims.vision import transforms as T


def build():
    net = nn.Conv2d(3, 8, 3)
    opt = shims.optim.Adam(net.parameters(), lr=1e-3)
    loader = DataLoader([1, 2, 3], batch_size=2)
    tf = T.ToTensor()
    return jt.concat([shims.mm(a, b) for a, b in loader], 0), F.relu(net), opt, tf, os.sep
