import shims
from jittor import nn
from shims.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau

model = nn.Linear(4, 2)
opts = [
    shims.optim.Adadelta(model.parameters(), rho=0.8),
    shims.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01),
    shims.optim.Adamax(model.parameters()),
    shims.optim.NAdam(model.parameters(), momentum_decay=1e-3),
    shims.optim.RAdam(model.parameters(), decoupled_weight_decay=True, weight_decay=0.1),
    shims.optim.ASGD(model.parameters(), t0=100),
    shims.optim.Rprop(model.parameters(), etas=(0.4, 1.1)),
    shims.optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.01}], lr=0.1, momentum=0.9, nesterov=True),
]
opt = shims.optim.AdamW(model.parameters(), lr=1e-3, amsgrad=True)
scheduler = OneCycleLR(opt, max_lr=0.01, total_steps=100)
plateau = ReduceLROnPlateau(opt, patience=2)
chain = shims.optim.lr_scheduler.ChainedScheduler([
    shims.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5),
    shims.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10),
])


def train(x, y):
    for step in range(10):
        opt.zero_grad()
        loss = shims.mean(((model(x) - y) ** 2))
        loss.backward()
        opt.step()
        scheduler.step()
        plateau.step(loss.item())


lbfgs = shims.optim.LBFGS(model.parameters(), lr=1, line_search_fn="strong_wolfe")


def fit(x, y):
    def closure():
        lbfgs.zero_grad()
        loss = shims.mean(((model(x) - y) ** 2))
        loss.backward()
        return loss

    for _ in range(5):
        lbfgs.step(closure)
