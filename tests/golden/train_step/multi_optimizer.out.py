import shims
from munch import Munch


def build(nets, lr):
    optims = Munch()
    for net in nets.keys():
        optims[net] = shims.optim.Adam(params=nets[net].parameters(), lr=lr)
    return optims


def generator_step(nets, optims, x_real, y_trg):
    g_loss = nets.generator(x_real, nets.mapping_network(y_trg)).mean()
    for optim in optims.values():
        optim.zero_grad()
    g_loss.backward()
    optims.generator.step()
    optims.mapping_network.step()
    optims.style_encoder.step()
    return g_loss
