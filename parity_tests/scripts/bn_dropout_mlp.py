"""A tabular classifier with BatchNorm1d and Dropout, trained with SGD (momentum, nesterov)
+ CosineAnnealingLR; per-epoch evaluation in eval() mode (BatchNorm's running statistics,
dropout off).  ``--dropout`` sets p: the parity test passes 0 because the two frameworks draw
different dropout masks (a different random generator), so only p=0 can match step for step;
eval() losses never depend on the masks."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Tabular(Dataset):
    def __init__(self, split, seed=0):
        rng = np.random.RandomState(seed)
        x = rng.randn(60, 5).astype(np.float32) * np.array([1, 3, 0.5, 2, 1], np.float32) + 1.0
        y = ((x[:, 0] + 0.5 * x[:, 1] - x[:, 3]) > 0.5).astype(np.int64)
        sl = slice(0, 48) if split == "train" else slice(48, 60)
        self.x, self.y = x[sl], y[sl]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"features": self.x[i], "label": self.y[i]}


class MLP(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(5, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(16, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(16, 2),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for batch in loader:
            out = model(batch["features"])
            total += F.cross_entropy(out, batch["label"], reduction="sum").item()
            n += len(batch["label"])
    return total / n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--dropout", type=float, default=0.3)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    train_loader = DataLoader(Tabular("train"), batch_size=12, shuffle=False, drop_last=True)
    val_loader = DataLoader(Tabular("val"), batch_size=6)
    model = MLP(args.dropout)
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    log = {"train": [], "val": [], "lr": []}
    for epoch in range(args.epochs):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(batch["features"]), batch["label"])
            loss.backward()
            optimizer.step()
            log["train"].append(loss.item())
        scheduler.step()
        log["lr"].append(optimizer.param_groups[0]["lr"])
        log["val"].append(evaluate(model, val_loader))
        print(f"epoch {epoch}: train {log['train'][-1]:.4f} val {log['val'][-1]:.4f}")

    torch.save({"state_dict": model.state_dict(), "epoch": args.epochs}, args.ckpt)
    restored = MLP(args.dropout)
    restored.load_state_dict(torch.load(args.ckpt)["state_dict"])
    log["reloaded"] = evaluate(restored, val_loader)
    log["running_mean"] = restored.net[1].running_mean.tolist()
    with open(args.log, "w") as f:
        json.dump(log, f)


if __name__ == "__main__":
    main()
