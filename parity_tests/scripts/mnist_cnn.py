"""MNIST-style CNN classifier: a small conv net on synthetic 12x12 "digits", CrossEntropyLoss,
Adam + StepLR, a checkpoint saved and reloaded at the end."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Digits(Dataset):
    def __init__(self, n=48, seed=0):
        rng = np.random.RandomState(seed)
        self.labels = rng.randint(0, 4, size=n)
        self.images = rng.rand(n, 1, 12, 12).astype(np.float32) * 0.3
        for i, c in enumerate(self.labels):
            self.images[i, 0, 3 * c:3 * c + 3, :] += 0.7  # a bright band per class

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), int(self.labels[idx])


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(8 * 4 * 4, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def main():
    parser = argparse.ArgumentParser(description="tiny MNIST-style CNN")
    parser.add_argument("--init", required=True, help="initial weights: written if absent, else loaded")
    parser.add_argument("--log", required=True, help="where the losses go (json)")
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()

    torch.manual_seed(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(Digits(), batch_size=16, shuffle=False)
    model = Net().to(device)
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    losses = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        for batch_idx, (data, target) in enumerate(loader):
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            output = model(data)
            loss = F.cross_entropy(output, target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.6f}")
        scheduler.step()

    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            pred = model(data).argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    torch.save({"epoch": args.epochs, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict()}, args.ckpt)

    checkpoint = torch.load(args.ckpt)
    model2 = Net()
    model2.load_state_dict(checkpoint["model_state_dict"])
    model2.eval()
    data, target = next(iter(loader))
    with torch.no_grad():
        reloaded = F.cross_entropy(model2(data), target).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "correct": correct, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
