import shims


def keep_zeros(model, opt, loss):
    opt.zero_grad(set_to_none=False)  # zeros, not None: torch's step applies them
    loss.backward()
    opt.step()


def retained(opt, loss):
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()


def module_zero(model, opt, loss):
    model.zero_grad()
    loss.backward()
    opt.step()


def accumulate(opt, losses, every):
    for i, loss in enumerate(losses):
        loss.backward()  # no zero_grad: gradients add up, as in torch
        if (i + 1) % every == 0:
            opt.step()
            opt.zero_grad()
