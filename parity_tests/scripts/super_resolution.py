"""Super-resolution in the style of pytorch/examples/super_resolution: conv layers ending in
PixelShuffle (ESPCN), trained with MSELoss and Adam + MultiStepLR, PSNR printed per epoch."""
import argparse
import json
import os
from math import log10

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset


class PairsFromFile(Dataset):
    """(low-res, high-res) pairs from an .npz file the script writes once."""

    def __init__(self, path, factor):
        data = np.load(path)
        self.hr = data["hr"]
        n, c, h, w = self.hr.shape
        self.lr = self.hr.reshape(n, c, h // factor, factor, w // factor, factor).mean(axis=(3, 5))

    def __getitem__(self, index):
        return torch.from_numpy(self.lr[index]), torch.from_numpy(self.hr[index])

    def __len__(self):
        return self.hr.shape[0]


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        return self.pixel_shuffle(self.conv3(x))

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight)


def main():
    parser = argparse.ArgumentParser(description="PyTorch Super Res Example")
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--upscale_factor", type=int, default=2)
    parser.add_argument("--nEpochs", type=int, default=2)
    args = parser.parse_args()

    data_path = os.path.splitext(args.log)[0] + "_pairs.npz"
    if not os.path.exists(data_path):
        rng = np.random.RandomState(0)
        yy, xx = np.mgrid[0:12, 0:12]
        hr = np.stack([np.sin(xx * f1 + yy * f2) for f1, f2 in rng.rand(16, 2)])[:, None]
        np.savez(data_path, hr=(0.5 + 0.5 * hr).astype(np.float32))
    loader = DataLoader(PairsFromFile(data_path, args.upscale_factor), batch_size=4, shuffle=False)
    model = Net(upscale_factor=args.upscale_factor)
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=0.003)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1], gamma=0.3)

    losses, psnrs = [], []
    for epoch in range(1, args.nEpochs + 1):
        for input, target in loader:
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            losses.append(loss.item())
            loss.backward()
            optimizer.step()
        scheduler.step()
        avg_psnr = 0
        with torch.no_grad():
            for input, target in loader:
                mse = criterion(model(input), target)
                avg_psnr += 10 * log10(1 / mse.item())
        psnrs.append(avg_psnr / len(loader))
        print("===> Epoch {} Avg. PSNR: {:.4f} dB".format(epoch, psnrs[-1]))

    torch.save(model.state_dict(), args.ckpt)
    net = Net(args.upscale_factor)
    net.load_state_dict(torch.load(args.ckpt))
    input, target = next(iter(loader))
    with torch.no_grad():
        reloaded = criterion(net(input), target).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "psnr": psnrs, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
