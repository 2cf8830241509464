"""Siamese network with a contrastive loss: one shared encoder embeds both items of a pair,
F.pairwise_distance and a margin; Adadelta + StepLR as in pytorch/examples/siamese_network."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset


class PairDataset(Dataset):
    def __init__(self, n=32, seed=0):
        rng = np.random.RandomState(seed)
        centers = rng.randn(4, 1, 6, 6).astype(np.float32)
        cls = rng.randint(0, 4, size=(n, 2))
        cls[::2, 1] = cls[::2, 0]  # every other pair is a positive pair
        self.a = centers[cls[:, 0]] + 0.3 * rng.randn(n, 1, 6, 6).astype(np.float32)
        self.b = centers[cls[:, 1]] + 0.3 * rng.randn(n, 1, 6, 6).astype(np.float32)
        self.same = (cls[:, 0] == cls[:, 1]).astype(np.float32)

    def __len__(self):
        return len(self.same)

    def __getitem__(self, i):
        return self.a[i], self.b[i], self.same[i]


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.ReLU(inplace=True), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Linear(4 * 2 * 2, 8), nn.ReLU(inplace=True), nn.Linear(8, 4))

    def forward_once(self, x):
        output = self.cnn(x)
        output = output.view(output.size()[0], -1)
        return self.fc(output)

    def forward(self, input1, input2):
        return self.forward_once(input1), self.forward_once(input2)


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=2.0):
        super(ContrastiveLoss, self).__init__()
        self.margin = margin

    def forward(self, output1, output2, same):
        d = F.pairwise_distance(output1, output2, keepdim=True).squeeze(1)
        return torch.mean(same * torch.pow(d, 2) + (1 - same) * torch.pow(torch.clamp(self.margin - d, min=0.0), 2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.7)
    args = parser.parse_args()

    loader = DataLoader(PairDataset(), batch_size=8, shuffle=False)
    net = SiameseNetwork()
    if os.path.exists(args.init):
        net.load_state_dict(torch.load(args.init))
    else:
        torch.save(net.state_dict(), args.init)
    criterion = ContrastiveLoss()
    optimizer = optim.Adadelta(net.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)

    losses = []
    for epoch in range(args.epochs):
        for _i, (img0, img1, same) in enumerate(loader):
            optimizer.zero_grad()
            output1, output2 = net(img0, img1)
            loss_contrastive = criterion(output1, output2, same)
            loss_contrastive.backward()
            optimizer.step()
            losses.append(loss_contrastive.item())
        scheduler.step()
        print("Epoch number {} Current loss {}".format(epoch, loss_contrastive.item()))

    torch.save({"net": net.state_dict(), "optim": optimizer.state_dict()}, args.ckpt)
    net2 = SiameseNetwork()
    net2.load_state_dict(torch.load(args.ckpt)["net"])
    with torch.no_grad():
        img0, img1, same = next(iter(loader))
        reloaded = criterion(*net2(img0, img1), same).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
