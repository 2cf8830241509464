"""Fast neural style, miniature: a transformer net of conv + InstanceNorm2d(affine) layers, a
residual block and nearest upsampling, trained against a frozen feature net with a content
MSE plus a Gram-matrix style loss (as pytorch/examples/fast_neural_style), Adam."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    return features.bmm(features_t) / (ch * h * w)


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(ConvLayer, self).__init__()
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class TransformerNet(nn.Module):
    def __init__(self):
        super(TransformerNet, self).__init__()
        self.conv1 = ConvLayer(3, 4, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(4, affine=True)
        self.conv2 = ConvLayer(4, 8, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(8, affine=True)
        self.res1 = ResidualBlock(8)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.deconv = ConvLayer(8, 3, kernel_size=3, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.res1(y)
        return self.deconv(self.up(y))


class Features(nn.Module):
    """A frozen stand-in for VGG: two feature maps."""

    def __init__(self, requires_grad=False):
        super(Features, self).__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU())
        self.slice2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(6, 8, 3, padding=1), nn.ReLU())
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h1 = self.slice1(X)
        return h1, self.slice2(h1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--content-weight", type=float, default=1.0)
    parser.add_argument("--style-weight", type=float, default=50.0)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    contents = torch.from_numpy(rng.rand(args.steps, 2, 3, 8, 8).astype(np.float32))
    style = torch.from_numpy(rng.rand(1, 3, 8, 8).astype(np.float32))
    transformer = TransformerNet()
    vgg = Features(requires_grad=False)
    if os.path.exists(args.init):
        state = torch.load(args.init)
        transformer.load_state_dict(state["transformer"])
        vgg.load_state_dict(state["vgg"])
    else:
        torch.save({"transformer": transformer.state_dict(), "vgg": vgg.state_dict()}, args.init)
    optimizer = torch.optim.Adam(transformer.parameters(), 1e-2)
    mse_loss = torch.nn.MSELoss()
    gram_style = [gram_matrix(y) for y in vgg(style)]

    log = {"content": [], "style": [], "total": []}
    transformer.train()
    for step in range(args.steps):
        x = contents[step]
        n_batch = len(x)
        optimizer.zero_grad()
        y = transformer(x)
        features_y = vgg(y)
        features_x = vgg(x)
        content_loss = args.content_weight * mse_loss(features_y[1], features_x[1])
        style_loss = 0.0
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss += mse_loss(gm_y, gm_s.repeat(n_batch, 1, 1))
        style_loss *= args.style_weight
        total_loss = content_loss + style_loss
        total_loss.backward()
        optimizer.step()
        log["content"].append(content_loss.item())
        log["style"].append(style_loss.item())
        log["total"].append(total_loss.item())
        print("step {}\tcontent: {:.6f}\tstyle: {:.6f}".format(step, content_loss.item(), style_loss.item()))

    transformer.eval()
    torch.save(transformer.state_dict(), args.ckpt)
    style_model = TransformerNet()
    style_model.load_state_dict(torch.load(args.ckpt))
    with torch.no_grad():
        output = style_model(contents[0]).clamp(0, 1)
    log["reloaded"] = output.mean().item()
    with open(args.log, "w") as f:
        json.dump(log, f)


if __name__ == "__main__":
    main()
