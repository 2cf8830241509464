import shims
import jittor as jt
from jittor import nn

decoder = shims.nn.Sequential(nn.Linear(4, 4), nn.ReLU())


class Net(shims.nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.enc = encoder
        self.dec = decoder
        self.register_buffer("kernel", jt.zeros(3), persistent=False)
        self.register_parameter("gain", jt.zeros(1).stop_grad())
        for param in self.enc.parameters():
            param.requires_grad = False

    def execute(self, x):
        return self.dec(self.enc(x)) * self.gain


def train_setup(encoder):
    decoder.eval()  # MCCNet: torch keeps training the decoder after eval()
    net = Net(encoder, decoder)
    net.train()
    return net
