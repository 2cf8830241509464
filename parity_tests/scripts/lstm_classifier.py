"""Sequence classifier: a batch_first LSTM reads a noisy sequence, a linear head classifies
its last hidden state; RMSprop + ExponentialLR; explicit numpy-seeded shuffling."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

SEQ_LEN, FEATURES, CLASSES = 7, 3, 3


class Sequences(Dataset):
    def __init__(self, n=40, seed=0):
        rng = np.random.RandomState(seed)
        self.y = rng.randint(0, CLASSES, size=n).astype(np.int64)
        t = np.linspace(0, 1, SEQ_LEN, dtype=np.float32)
        self.x = rng.randn(n, SEQ_LEN, FEATURES).astype(np.float32) * 0.2
        self.x[:, :, 0] += np.outer(self.y, t).astype(np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class RNNClassifier(nn.Module):
    def __init__(self, hidden_size=12, num_layers=2):
        super().__init__()
        self.lstm = nn.LSTM(FEATURES, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, CLASSES)

    def forward(self, x):
        h0 = torch.zeros(self.lstm.num_layers, x.size(0), self.lstm.hidden_size)
        c0 = torch.zeros(self.lstm.num_layers, x.size(0), self.lstm.hidden_size)
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    dataset = Sequences()
    order = np.random.RandomState(3).permutation(len(dataset)).tolist()
    loader = DataLoader(dataset, batch_size=10, sampler=order)
    model = RNNClassifier()
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.005)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    losses = []
    for epoch in range(args.epochs):
        for _i, (seqs, labels) in enumerate(loader):
            outputs = model(seqs)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
        print("Epoch [{}/{}], Loss: {:.4f}".format(epoch + 1, args.epochs, loss.item()))

    torch.save(model.state_dict(), args.ckpt)
    model = RNNClassifier()
    model.load_state_dict(torch.load(args.ckpt))
    model.eval()
    with torch.no_grad():
        x = torch.from_numpy(dataset.x)
        reloaded = criterion(model(x), torch.from_numpy(dataset.y)).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
