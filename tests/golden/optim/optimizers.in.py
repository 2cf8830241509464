import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau

model = nn.Linear(4, 2)
opts = [
    optim.Adadelta(model.parameters(), rho=0.8),
    optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01),
    optim.Adamax(model.parameters()),
    optim.NAdam(model.parameters(), momentum_decay=1e-3),
    optim.RAdam(model.parameters(), decoupled_weight_decay=True, weight_decay=0.1),
    optim.ASGD(model.parameters(), t0=100),
    optim.Rprop(model.parameters(), etas=(0.4, 1.1)),
    optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.01}], lr=0.1, momentum=0.9, nesterov=True),
]
opt = optim.AdamW(model.parameters(), lr=1e-3, amsgrad=True)
scheduler = OneCycleLR(opt, max_lr=0.01, total_steps=100)
plateau = ReduceLROnPlateau(opt, patience=2)
chain = torch.optim.lr_scheduler.ChainedScheduler([
    torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5),
    torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10),
])


def train(x, y):
    for step in range(10):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        scheduler.step()
        plateau.step(loss.item())


lbfgs = optim.LBFGS(model.parameters(), lr=1, line_search_fn="strong_wolfe")


def fit(x, y):
    def closure():
        lbfgs.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(5):
        lbfgs.step(closure)
