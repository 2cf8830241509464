"""A small CNN, written the way torch tutorials and research repos write it."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    """Conv -> BatchNorm -> ReLU: the building block of the feature extractor."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class SmallCNN(nn.Module):
    """Two conv blocks, max-pooling between them, global average pooling, a linear head."""

    def __init__(self, num_classes=2):
        super().__init__()
        # an nn.Sequential-built extractor: Jittor's own converter drops these
        self.features = nn.Sequential(
            ConvBlock(1, 8),
            nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2)),  # tuple arguments, as in VGG ports
            ConvBlock(8, 16),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.features(x)
        return self.head(torch.flatten(x, 1))
