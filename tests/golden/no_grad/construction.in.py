import torch
import torch.nn as nn

import net


def build(vgg, decoder, x):
    # upstream builds the network under no_grad
    with torch.no_grad():  # no autograd bookkeeping while building
        network = net.Net(vgg, decoder)
        head = nn.Linear(4, 2)
    with torch.no_grad():
        y = network(x)  # a real no_grad computation stays
    return network, head, y


def gan_step(D, G, z):
    with torch.no_grad():
        fake = G(z)  # calling networks named in capitals is a computation
    return D(fake)
