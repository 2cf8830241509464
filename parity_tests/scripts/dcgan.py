"""DCGAN step in the style of pytorch/examples/dcgan: ConvTranspose2d generator and conv
discriminator with BatchNorm, two Adam optimizers, fake.detach() for the discriminator,
BCEWithLogitsLoss.  Latent noise comes from a seeded numpy generator."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

nz, ngf, ndf = 4, 4, 4


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, 1, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 2, 1, 0, bias=False),
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--iters", type=int, default=4)
    parser.add_argument("--batchSize", type=int, default=6)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    real_images = np.tanh(rng.randn(args.iters, args.batchSize, 1, 8, 8)).astype(np.float32)
    netG, netD = Generator(), Discriminator()
    if os.path.exists(args.init):
        state = torch.load(args.init)
        netG.load_state_dict(state["G"])
        netD.load_state_dict(state["D"])
    else:
        torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, args.init)
    criterion = nn.BCEWithLogitsLoss()
    real_label, fake_label = 1.0, 0.0
    optimizerD = optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))

    log = {"errD": [], "errG": [], "D_x": []}
    for i in range(args.iters):
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real = torch.from_numpy(real_images[i])
        b_size = real.size(0)
        label = torch.full((b_size,), real_label, dtype=real.dtype)
        output = netD(real)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = torch.sigmoid(output).mean().item()
        noise = torch.from_numpy(rng.randn(b_size, nz, 1, 1).astype(np.float32))
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()

        # (2) Update G network: maximize log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        optimizerG.step()
        print("[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f" % (i, args.iters, errD.item(), errG.item(), D_x))
        log["errD"].append(errD.item())
        log["errG"].append(errG.item())
        log["D_x"].append(D_x)

    torch.save(netG.state_dict(), args.ckpt)
    netG2 = Generator()
    netG2.load_state_dict(torch.load(args.ckpt))
    netG2.eval()
    with torch.no_grad():
        fixed_noise = torch.from_numpy(np.random.RandomState(5).randn(4, nz, 1, 1).astype(np.float32))
        log["reloaded"] = netG2(fixed_noise).abs().mean().item()
    with open(args.log, "w") as f:
        json.dump(log, f)


if __name__ == "__main__":
    main()
