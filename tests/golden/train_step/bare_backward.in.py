import torch
import torch.nn as nn


class Gen(nn.Module):
    def forward(self, x):
        loss = self.net(x).mean()
        loss.backward()  # HiSD: backward inside forward under DataParallel
        return loss


def accumulate(loss, weight):
    (loss * weight).backward(retain_graph=True)
