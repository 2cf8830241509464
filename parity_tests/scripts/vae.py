"""Variational autoencoder in the style of pytorch/examples/vae: fully connected encoder and
decoder, BCE + KL loss summed over the batch, Adam.  The reparameterisation noise is drawn
from a seeded numpy generator (so any framework draws the same numbers)."""
import argparse
import json
import os

import numpy as np
import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

noise_rng = np.random.RandomState(7)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(36, 16)
        self.fc21 = nn.Linear(16, 4)
        self.fc22 = nn.Linear(16, 4)
        self.fc3 = nn.Linear(4, 16)
        self.fc4 = nn.Linear(16, 36)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.from_numpy(noise_rng.standard_normal(std.shape).astype(np.float32))
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 36))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 36), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def main():
    parser = argparse.ArgumentParser(description="VAE")
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    images = (rng.rand(32, 1, 6, 6) > 0.6).astype(np.float32)
    train_loader = DataLoader(TensorDataset(torch.from_numpy(images)), batch_size=8, shuffle=False)
    model = VAE()
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)

    losses = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        train_loss = 0
        for _batch_idx, (data,) in enumerate(train_loader):
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data)
            loss = loss_function(recon_batch, data, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
            losses.append(loss.item() / len(data))
        print("====> Epoch: {} Average loss: {:.4f}".format(epoch, train_loss / len(train_loader.dataset)))

    torch.save(model.state_dict(), args.ckpt)
    model = VAE()
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
    model.eval()
    with torch.no_grad():
        data = torch.from_numpy(images[:8])
        mu, logvar = model.encode(data.view(-1, 36))
        reloaded = F.binary_cross_entropy(model.decode(mu), data.view(-1, 36)).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
