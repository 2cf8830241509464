"""MNIST with torchvision: datasets.MNIST read from its raw idx files, RandomCrop(padding) +
RandomHorizontalFlip + ToTensor + Normalize, DataLoader(shuffle=True), SGD with momentum, a
checkpoint saved and reloaded.  The order of the samples and every crop and flip come from
torch's random stream, so the losses match torch's only if the port draws them as torch does."""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 8, 3)
        self.fc = nn.Linear(8 * 5 * 5, 10)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)  # no ties: the padded border is constant
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def main():
    parser = argparse.ArgumentParser(description="MNIST with augmentation")
    parser.add_argument("--init", required=True, help="initial weights: written if absent, else loaded")
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--data", required=True, help="root folder holding MNIST/raw")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Net()
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)

    transform = transforms.Compose([
        transforms.RandomCrop(14, padding=2),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,)),
    ])
    train_set = datasets.MNIST(args.data, train=True, download=False, transform=transform)
    test_set = datasets.MNIST(args.data, train=False, download=False,
                              transform=transforms.Compose([transforms.ToTensor(),
                                                            transforms.Normalize((0.1307,), (0.3081,))]))
    # the data order and the augmentation draw from here on
    torch.manual_seed(1)
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=16)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)

    losses = []
    for epoch in range(args.epochs):
        model.train()
        for data, target in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch}: last loss {losses[-1]:.4f}")

    model.eval()
    correct, test_loss = 0, 0.0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, args.ckpt)
    model2 = Net()
    model2.load_state_dict(torch.load(args.ckpt)["model"])
    model2.eval()
    data, target = next(iter(test_loader))
    with torch.no_grad():
        reloaded = F.cross_entropy(model2(data), target).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "test_loss": test_loss, "correct": correct, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
