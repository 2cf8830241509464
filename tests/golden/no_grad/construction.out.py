import shims
import jittor as jt
from jittor import nn

import net


def build(vgg, decoder, x):
    # upstream builds the network under no_grad
    # no autograd bookkeeping while building
    network = net.Net(vgg, decoder)  # jtport: JT101 torch.no_grad: torch.no_grad() around construction removed: under jt.no_grad Jittor would create the parameters untrainable (torch's no_grad does not affect them)
    head = nn.Linear(4, 2)
    with jt.no_grad():
        y = network(x)  # a real no_grad computation stays
    return network, head, y


def gan_step(D, G, z):
    with jt.no_grad():
        fake = G(z)  # calling networks named in capitals is a computation
    return D(fake)
